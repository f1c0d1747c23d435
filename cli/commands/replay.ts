import type { ReplaySelectionInput } from '@/lib/domain/replay-jobs/schemas';
import { cancelReplayJob, getReplayJob, listReplayJobs, previewSelection, startReplayJob, type ReplayJobView } from '@/lib/domain/replay-jobs/service';
import { CLI, parseOptions, required, UsageError } from '../args';
import { withDatabase } from '../database';
import { CLI_ACTOR, factoryIdOrThrow } from '../factory';
import { runCommand } from '../run-command';

const usage = `Usage: ${CLI} replay <subcommand> --factory <slug> [options]

Bulk replay (docs/replay.md): replay many of a webhook's Accepted deliveries
against today's automations, in the background on the server.

  preview <selection>                count the selection and list its newest entries
  start <selection>                  start a replay job (at most 5,000 deliveries;
                                     one running job per factory)
  status [--job <id>]                the factory's latest jobs, or one job's progress
  cancel --job <id>                  stop a running job: nothing more is replayed

A selection is a webhook's log filters or an automation's trigger:
  --webhook <uid> [--q <text>] [--event <type or pattern>] [--from <time>] [--to <time>]
  --automation <id> [--trigger <index>]   what the trigger matches in Backtest

Times are ISO 8601 (2026-11-27T09:00:00Z; without a zone, UTC).`;

function progressLine(job: ReplayJobView): string {
  const percent = job.total ? Math.floor((job.done / job.total) * 100) : 100;
  return [
    job.id,
    job.status,
    `${job.done}/${job.total} (${percent}%)`,
    `${job.runsStarted} runs started`,
    job.skipped ? `${job.skipped} skipped` : null,
    job.waiting,
    `webhook ${job.webhookName ?? job.webhookUid}`,
    `by ${job.createdBy} at ${job.createdAt.toISOString()}`,
  ]
    .filter(Boolean)
    .join('\t');
}

export function run(args: string[]): Promise<number> {
  return runCommand(usage, args, async () => {
    const { values, positionals } = parseOptions(args, {
      factory: { type: 'string' },
      webhook: { type: 'string' },
      q: { type: 'string' },
      event: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      automation: { type: 'string' },
      trigger: { type: 'string' },
      job: { type: 'string' },
    });
    const subcommand = positionals[0];
    if (!subcommand || !['preview', 'start', 'status', 'cancel'].includes(subcommand)) {
      throw new UsageError(subcommand ? `Unknown subcommand "${subcommand}"` : 'Missing subcommand');
    }
    const slug = required(values.factory, 'factory');
    const selection: ReplaySelectionInput = { webhook: values.webhook, q: values.q, event: values.event, from: values.from, to: values.to, automation: values.automation, trigger: values.trigger };
    return withDatabase(async (database) => {
      const factoryId = await factoryIdOrThrow(database, slug);
      const db = database.prisma;
      switch (subcommand) {
        case 'preview': {
          const preview = await previewSelection(factoryId, selection, db);
          const count = preview.tooMany ? `more than ${preview.max}` : String(preview.count);
          console.log(`${count} deliveries of ${preview.webhook.name} (${preview.webhook.uid})${preview.tooMany ? `: a job replays at most ${preview.max}; narrow the selection` : ''}`);
          if (preview.untested) console.log(`${preview.untested} deliveries could not be evaluated by Backtest yet and are not included`);
          for (const d of preview.deliveries) console.log([d.id, d.deliveryId, d.eventType ?? '-', d.receivedAt.toISOString()].join('\t'));
          return 0;
        }
        case 'start': {
          const job = await startReplayJob(factoryId, selection, CLI_ACTOR, db);
          console.log(`started ${job.id}: ${job.total} deliveries; the server replays them in the background`);
          console.log(`follow it with: ${CLI} replay status --factory ${slug} --job ${job.id}`);
          return 0;
        }
        case 'status': {
          const jobs = values.job ? [await getReplayJob(factoryId, values.job, db)] : await listReplayJobs(factoryId, 10, db);
          if (jobs.length === 0) console.log('no replay jobs');
          for (const job of jobs) console.log(progressLine(job));
          return 0;
        }
        default: {
          const job = await cancelReplayJob(factoryId, required(values.job, 'job'), CLI_ACTOR, db);
          console.log(`cancelled ${job.id} after ${job.done} of ${job.total}`);
          return 0;
        }
      }
    });
  });
}
