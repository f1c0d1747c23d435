// In-process half of bench/field-catalogue.mjs (run by it with tsx): times the
// field catalogue and the editor's live count as the server computes them,
// cold (a newer delivery arrived, so the sample is read and parsed again) and
// warm (the sample is cached). Prints one JSON line.
import pg from 'pg';
import { openDatabase } from '@/lib/platform/db';
import { countFilterMatches, getFieldCatalogue } from '@/lib/domain/fields/service';

const [url, factoryId, uid, webhookId] = process.argv.slice(2) as [string, string, string, string];
const database = openDatabase({ kind: 'postgres', url });
const raw = new pg.Client({ connectionString: url });
await raw.connect();

let fresh = 0;
/** A newer accepted delivery: the next call reads the sample again. */
async function arrive() {
  fresh++;
  await raw.query(
    `INSERT INTO "Delivery" ("id", "webhookId", "deliveryId", "identitySource", "status", "size", "receivedAt", "body")
     SELECT 'dl_fresh' || $2::text, "webhookId", 'fresh_' || $2::text, "identitySource", status, size, now() + ($2::text || ' seconds')::interval, body
       FROM "Delivery" WHERE "webhookId" = $1 AND status = 'accepted' ORDER BY "receivedAt" DESC LIMIT 1`,
    [webhookId, fresh],
  );
}

async function time(label: string, cold: boolean, call: () => Promise<unknown>) {
  const samples: number[] = [];
  await call();
  for (let i = 0; i < 10; i++) {
    if (cold) await arrive();
    const t0 = performance.now();
    await call();
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  return { label, medianMs: Number(samples[5]!.toFixed(1)), worstMs: Number(samples.at(-1)!.toFixed(1)) };
}

const filter = { action: ['opened', 'reopened'], pull_request: { draft: false, base: { ref: 'main' } }, sender: { type: { not_in: ['Bot'] } } };
const catalogue = await getFieldCatalogue(factoryId, uid, database.prisma);
const results = [
  await time('catalogue, cold (new delivery: read + parse + build)', true, () => getFieldCatalogue(factoryId, uid, database.prisma)),
  await time('catalogue, warm (cached sample)', false, () => getFieldCatalogue(factoryId, uid, database.prisma)),
  await time('live count, cold (new delivery: read + parse + evaluate)', true, () => countFilterMatches(factoryId, uid, filter, database.prisma)),
  await time('live count, warm (one index query + evaluate)', false, () => countFilterMatches(factoryId, uid, filter, database.prisma)),
];
console.log(JSON.stringify({ sampled: catalogue.sampled, paths: catalogue.fields.length, results }));
await raw.end();
await database.close();
