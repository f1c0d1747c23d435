'use server';

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { factoryAction } from '@/lib/adapters/actions/action';
import { startReplayJobSchema } from '@/lib/domain/replay-jobs/schemas';
import { cancelReplayJob, getReplayJob, startReplayJob } from '@/lib/domain/replay-jobs/service';

// Dashboard adapters over lib/domain/replay-jobs/service. A bulk replay starts runs
// (and so spends an agent's time), so admins start and cancel one, as with
// the single Replay and in the API.

/** Starts a bulk replay job over the selection; returns its id. */
export const startReplayJobAction = factoryAction('factory:manage', startReplayJobSchema, async ({ factory, user }, input) => {
  const job = await startReplayJob(factory.id, input.selection, user);
  revalidatePath(`/f/${factory.slug}/automations`, 'layout');
  return { id: job.id, total: job.total };
});

export const cancelReplayJobAction = factoryAction('factory:manage', z.strictObject({ id: z.string().trim().min(1).max(100) }), async ({ factory, user }, input) => {
  const job = await cancelReplayJob(factory.id, input.id, user);
  revalidatePath(`/f/${factory.slug}/automations`, 'layout');
  return { status: job.status, done: job.done };
});

/** A job's progress, polled by the replay page while the job runs (every member may follow it). */
export const replayJobProgressAction = factoryAction('factory:read', z.strictObject({ id: z.string().trim().min(1).max(100) }), async ({ factory }, input) => {
  const job = await getReplayJob(factory.id, input.id);
  return { status: job.status, total: job.total, done: job.done, runsStarted: job.runsStarted, skipped: job.skipped, waiting: job.waiting };
});
