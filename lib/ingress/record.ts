import 'server-only';
import { sql } from '@/lib/db/sql';
import { randomBase62 } from '@/lib/crypto/random';
import type { Identity } from '@/lib/ingress/identity';

// Writing the delivery log. An accepted request is one SQL statement: it
// claims the identity in DeliveryIdentity (primary key: webhook, delivery
// ID) with ON CONFLICT DO NOTHING and inserts the log entry as Accepted when
// the claim succeeded, Duplicate when it did not. The database decides, so
// concurrent identical requests produce exactly one Accepted; the 202 is
// sent only after the statement committed.

export type RejectedStatus = 'rejected_auth' | 'rejected_invalid_json' | 'rejected_too_large';

/** Entries written with metadata only: rejections, and verification handshakes (lib/ingress/handshakes.ts), which start nothing. */
export type MetadataOnlyStatus = RejectedStatus | 'handshake';

const newDeliveryRowId = () => `dl_${randomBase62(22)}`;

export async function recordRejected(input: {
  webhookId: string;
  status: MetadataOnlyStatus;
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
  identity: Identity;
  size: number;
  body: string;
  headers: Record<string, string>;
  remoteAddress: string | null;
}): Promise<{ id: string; status: 'accepted' | 'duplicate' }> {
  const id = newDeliveryRowId();
  const rows = await sql<{ status: 'accepted' | 'duplicate' }>(
    `WITH claimed AS (
       INSERT INTO "DeliveryIdentity" ("webhookId", "deliveryId", "acceptedId", "createdAt")
       VALUES ($1, $2, $3, now())
       ON CONFLICT DO NOTHING
       RETURNING 1
     )
     INSERT INTO "Delivery" ("id", "webhookId", "deliveryId", "identitySource", "status", "size", "receivedAt", "body", "headers", "remoteAddress", "detail")
     SELECT $3, $1, $2, $4::"IdentitySource",
            CASE WHEN EXISTS (SELECT 1 FROM claimed) THEN 'accepted'::"DeliveryStatus" ELSE 'duplicate'::"DeliveryStatus" END,
            $5, now(),
            CASE WHEN EXISTS (SELECT 1 FROM claimed) THEN $6 ELSE NULL END,
            CASE WHEN EXISTS (SELECT 1 FROM claimed) THEN $7::jsonb ELSE NULL END,
            $8,
            CASE WHEN EXISTS (SELECT 1 FROM claimed) THEN NULL ELSE 'identity already accepted' END
     RETURNING "status"::text AS status`,
    [input.webhookId, input.identity.deliveryId, id, input.identity.source, input.size, input.body, JSON.stringify(input.headers), input.remoteAddress],
  );
  return { id, status: rows[0]!.status };
}
