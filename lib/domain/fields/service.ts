import 'server-only';
import { prisma, type DbOrTx } from '@/lib/platform/db';
import { matchesTrigger, type PayloadFilter, type TriggerFilter } from '@/lib/ingress/filters';
import { AppError } from '@/lib/platform/http/errors';
import { buildCatalogue, type FieldCatalogue } from './catalogue';

// The sample of a webhook's accepted deliveries that the field catalogue and
// the filter editor's live count read (docs/filters.md, The field catalogue).
// Computed on demand, never on the ingress path: the latest SAMPLE_SIZE
// accepted deliveries, bounded by SAMPLE_BYTES of body text, parsed once and
// kept for CACHE_MS while no newer delivery arrived. Every keystroke of the
// live count then costs one index-only query plus the evaluator over the
// parsed bodies.

export const SAMPLE_SIZE = 500;
/** Bodies are up to 256 KB each; the sample stops at this many bytes of them (at least one delivery). */
export const SAMPLE_BYTES = 4 * 1024 * 1024;
const CACHE_MS = 30_000;
const CACHE_ENTRIES = 8;

/** A sampled delivery as a trigger's filter reads it. */
type SampledDelivery = { eventType: string | null; headers: unknown; body: unknown };

type Sample = { newestId: string | null; rows: number; loadedAt: number; bodies: unknown[]; deliveries: SampledDelivery[]; catalogue: FieldCatalogue | null };

// One process-wide cache; small on purpose (a parsed sample is a few MB).
const samples = new Map<string, Sample>();

async function webhookIdOf(db: DbOrTx, factoryId: string, uid: string, includeDeleted: boolean): Promise<string> {
  const webhook = await db.webhook.findFirst({ where: { factoryId, uid, ...(includeDeleted ? {} : { deletedAt: null }) }, select: { id: true } });
  if (!webhook) throw new AppError('not_found', 'Webhook not found');
  return webhook.id;
}

async function loadSample(db: DbOrTx, webhookId: string): Promise<Sample> {
  // The same order as Backtest, so both read the same latest deliveries.
  const rows = await db.delivery.findMany({
    where: { webhookId, status: 'accepted', body: { not: null } },
    select: { id: true, size: true },
    orderBy: [{ receivedAt: 'desc' }, { id: 'desc' }],
    take: SAMPLE_SIZE,
  });
  const newestId = rows[0]?.id ?? null;
  const cached = samples.get(webhookId);
  if (cached && cached.newestId === newestId && cached.rows === rows.length && Date.now() - cached.loadedAt < CACHE_MS) return cached;

  let bytes = 0;
  let take = 0;
  for (const row of rows) {
    if (take > 0 && bytes + row.size > SAMPLE_BYTES) break;
    bytes += row.size;
    take++;
  }
  const ids = rows.slice(0, take).map((row) => row.id);
  const loaded = ids.length ? await db.delivery.findMany({ where: { id: { in: ids } }, select: { id: true, body: true, eventType: true, headers: true } }) : [];
  const byId = new Map(loaded.map((row) => [row.id, row]));
  const deliveries: SampledDelivery[] = [];
  for (const id of ids) {
    const row = byId.get(id);
    if (row?.body == null) continue;
    try {
      deliveries.push({ eventType: row.eventType, headers: row.headers, body: JSON.parse(row.body) as unknown });
    } catch {
      // Accepted bodies are JSON; one nested too deeply for this parser is left out.
    }
  }
  const bodies = deliveries.map((delivery) => delivery.body);
  const sample: Sample = { newestId, rows: rows.length, loadedAt: Date.now(), bodies, deliveries, catalogue: null };
  samples.delete(webhookId);
  samples.set(webhookId, sample);
  while (samples.size > CACHE_ENTRIES) samples.delete(samples.keys().next().value!);
  return sample;
}

/** The field catalogue of a (not deleted) webhook, over its latest accepted deliveries. */
export async function getFieldCatalogue(factoryId: string, uid: string, db: DbOrTx = prisma): Promise<FieldCatalogue> {
  const sample = await loadSample(db, await webhookIdOf(db, factoryId, uid, false));
  sample.catalogue ??= buildCatalogue(
    sample.bodies,
    sample.deliveries.map((delivery) => delivery.eventType),
  );
  return sample.catalogue;
}

export type MatchCount = { matched: number; sampled: number };

/**
 * How many of the webhook's latest accepted deliveries a trigger's filter
 * (event types, headers, payload) matches, with the evaluator the ingress
 * uses. A deleted webhook keeps its log, so its triggers can still be
 * counted, as Backtest does.
 */
export async function countTriggerMatches(factoryId: string, uid: string, filter: TriggerFilter, db: DbOrTx = prisma): Promise<MatchCount> {
  const sample = await loadSample(db, await webhookIdOf(db, factoryId, uid, true));
  const matched = sample.deliveries.filter((delivery) => matchesTrigger(filter, delivery)).length;
  return { matched, sampled: sample.deliveries.length };
}

/** The same count for a payload filter alone. */
export function countFilterMatches(factoryId: string, uid: string, filter: PayloadFilter | null, db: DbOrTx = prisma): Promise<MatchCount> {
  return countTriggerMatches(factoryId, uid, { payload: filter }, db);
}
