import 'server-only';
import { sql } from '@/lib/db/sql';
import { randomBase62 } from '@/lib/crypto/random';
import type { Identity } from '@/lib/ingress/identity';
import { newRunId, type NewRun } from '@/lib/runs/start';

// Writing the delivery log. An accepted request is one SQL statement: it
// claims the identity in DeliveryIdentity (primary key: webhook, delivery
// ID) with ON CONFLICT DO NOTHING and inserts the log entry as Accepted when
// the claim succeeded, Duplicate when it did not. The database decides, so
// concurrent identical requests produce exactly one Accepted; the 202 is
// sent only after the statement committed.
//
// The runs a delivery starts are inserted by the same statement, and only
// when the identity was claimed: an accepted delivery never exists without
// its runs, and a duplicate starts nothing. The automation must still be
// enabled when the statement runs (the matching used the cached triggers).

export type RejectedStatus = 'rejected_auth' | 'rejected_invalid_json' | 'rejected_too_large';

const newDeliveryRowId = () => `dl_${randomBase62(22)}`;

export async function recordRejected(input: {
  webhookId: string;
  status: RejectedStatus;
  identity: Identity;
  size: number;
  detail: string;
  remoteAddress: string | null;
}): Promise<void> {
  await sql(
    `INSERT INTO "Delivery" ("id", "webhookId", "deliveryId", "identitySource", "status", "size", "receivedAt", "detail", "remoteAddress")
     VALUES ($1, $2, $3, $4::"IdentitySource", $5::"DeliveryStatus", $6, now(), $7, $8)`,
    [newDeliveryRowId(), input.webhookId, input.identity.deliveryId, input.identity.source, input.status, input.size, input.detail, input.remoteAddress],
  );
}

export async function recordAccepted(input: {
  webhookId: string;
  factoryId: string;
  identity: Identity;
  size: number;
  body: string;
  headers: Record<string, string>;
  remoteAddress: string | null;
  runs: NewRun[];
}): Promise<{ id: string; status: 'accepted' | 'duplicate'; runs: number }> {
  const id = newDeliveryRowId();
  const params: unknown[] = [input.webhookId, input.identity.deliveryId, id, input.identity.source, input.size, input.body, JSON.stringify(input.headers), input.remoteAddress];
  const runs = input.runs.length
    ? `, runs AS (
         INSERT INTO "Run" ("id", "factoryId", "automationId", "deliveryId", "status", "prompt", "envelope", "attachments", "createdAt")
         SELECT r."id", $9::text, r."automationId", $3::text, 'queued'::"RunStatus", r."prompt", r."envelope"::jsonb, r."attachments"::jsonb, now()
           FROM unnest($10::text[], $11::text[], $12::text[], $13::text[], $14::text[]) AS r("id", "automationId", "prompt", "envelope", "attachments")
           JOIN "Automation" a ON a."id" = r."automationId" AND a."enabled"
          WHERE EXISTS (SELECT 1 FROM claimed)
         RETURNING 1
       )`
    : '';
  if (input.runs.length) {
    params.push(
      input.factoryId,
      input.runs.map(newRunId),
      input.runs.map((r) => r.automationId),
      input.runs.map((r) => r.prompt),
      input.runs.map((r) => JSON.stringify(r.envelope)),
      input.runs.map((r) => JSON.stringify(r.attachments)),
    );
  }
  const rows = await sql<{ status: 'accepted' | 'duplicate'; runs: number }>(
    `WITH claimed AS (
       INSERT INTO "DeliveryIdentity" ("webhookId", "deliveryId", "acceptedId", "createdAt")
       VALUES ($1, $2, $3, now())
       ON CONFLICT DO NOTHING
       RETURNING 1
     )${runs}, delivery AS (
     INSERT INTO "Delivery" ("id", "webhookId", "deliveryId", "identitySource", "status", "size", "receivedAt", "body", "headers", "remoteAddress", "detail")
     SELECT $3, $1, $2, $4::"IdentitySource",
            CASE WHEN EXISTS (SELECT 1 FROM claimed) THEN 'accepted'::"DeliveryStatus" ELSE 'duplicate'::"DeliveryStatus" END,
            $5, now(),
            CASE WHEN EXISTS (SELECT 1 FROM claimed) THEN $6 ELSE NULL END,
            CASE WHEN EXISTS (SELECT 1 FROM claimed) THEN $7::jsonb ELSE NULL END,
            $8,
            CASE WHEN EXISTS (SELECT 1 FROM claimed) THEN NULL ELSE 'identity already accepted' END
     RETURNING "status"::text AS status
     )
     SELECT status, ${input.runs.length ? '(SELECT count(*) FROM runs)::int' : '0'} AS runs FROM delivery`,
    params,
  );
  return { id, status: rows[0]!.status, runs: rows[0]!.runs };
}
