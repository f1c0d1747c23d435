// The timing half of bench/backtest.mjs, run by it under `node --conditions=react-server --import tsx`:
// Backtest (lib/domain/automations/test-filter.ts, as the API and the dashboard call it) over the filled
// webhook, for each filter the median and worst of BENCH_RUNS runs after a warm-up. Prints JSON lines.
import { backtestTrigger } from '@/lib/domain/automations/test-filter';
import { openDatabase } from '@/lib/platform/db';
import type { PayloadFilter } from '@/lib/ingress/filters';

const [url, runsArg, filtersArg] = process.argv.slice(2);
const runs = Number(runsArg);
const filters = JSON.parse(filtersArg!) as [string, PayloadFilter | null][];
const database = openDatabase({ kind: 'postgres', url: url! });
try {
  const db = database.prisma;
  const webhook = await db.webhook.findFirstOrThrow({ where: { name: 'busy' }, select: { uid: true, factoryId: true } });
  for (const [label, payload] of filters) {
    const trigger = { provider: 'webhook' as const, event: 'received' as const, filter: payload ? { webhook_ids: [webhook.uid], payload } : { webhook_ids: [webhook.uid] } };
    const samples: number[] = [];
    let result = await backtestTrigger(webhook.factoryId, { trigger }, db); // warm-up
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      result = await backtestTrigger(webhook.factoryId, { trigger }, db);
      samples.push(performance.now() - started);
    }
    samples.sort((a, b) => a - b);
    const median = samples[Math.floor(samples.length / 2)]!;
    console.log(
      JSON.stringify({ label, filter: JSON.stringify(payload), counted: `${result.wouldTrigger} of ${result.tested}`, listed: result.deliveries.length, medianMs: Math.round(median), worstMs: Math.round(samples.at(-1)!) }),
    );
  }
} finally {
  await database.close();
}
