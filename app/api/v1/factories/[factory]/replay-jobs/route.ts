import { withFactory } from '@/lib/adapters/api/handler';
import { startReplayJobSchema } from '@/lib/domain/replay-jobs/schemas';
import { listReplayJobs, replayJobJson, startReplayJob } from '@/lib/domain/replay-jobs/service';

// GET /api/v1/factories/{factory}/replay-jobs: the factory's newest bulk replay jobs (every member)
export const GET = withFactory('factory:read', async ({ context }) => {
  return Response.json({ jobs: (await listReplayJobs(context.factory.id)).map(replayJobJson) });
});

// POST /api/v1/factories/{factory}/replay-jobs (admins, as the single Replay): freezes the selection and starts the job
export const POST = withFactory('factory:manage', startReplayJobSchema, async ({ context, input }) => {
  const job = await startReplayJob(context.factory.id, input.selection, context.user);
  return Response.json(replayJobJson(job), { status: 201 });
});
