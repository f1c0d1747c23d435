import 'server-only';
import type { Database } from '@/lib/platform/db';
import { describeTarget } from '@/lib/platform/db/adapter';
import { applyPendingMigrations } from '@/lib/platform/db/migrate';
import { getAuthSecret, getSecretsKey, keyFingerprint } from '@/lib/platform/crypto/keys';

// Run before serving or operating on a database: apply pending migrations,
// then check that this instance's keys are the ones the database was used
// with (instances behind a load balancer must share TRIPLINE_SECRETS_KEY and
// TRIPLINE_AUTH_SECRET; a mismatch would make secrets unreadable and sign
// people out at random).

/** Returns the names of the migrations it applied. */
export async function prepareDatabase(database: Database, log: (line: string) => void = () => {}): Promise<string[]> {
  const applied = await applyPendingMigrations(database.adapter, { log });
  for (const name of applied) log(`applied migration ${name}`);
  await verifyKeyFingerprints(database);
  log(`database ready (${describeTarget(database.adapter.target)})`);
  return applied;
}

/** The fingerprints of this instance's keys, as the database stores them (InstanceSetting). */
export function keyFingerprints(): Array<{ key: string; value: string; variable: string }> {
  return [
    { key: 'secrets-key-fingerprint', value: keyFingerprint(getSecretsKey(), 'secrets'), variable: 'TRIPLINE_SECRETS_KEY' },
    { key: 'auth-secret-fingerprint', value: keyFingerprint(getAuthSecret(), 'auth'), variable: 'TRIPLINE_AUTH_SECRET' },
  ];
}

export async function verifyKeyFingerprints(database: Database): Promise<void> {
  for (const { key, value, variable } of keyFingerprints()) {
    // INSERT ... ON CONFLICT DO NOTHING: instances starting together all
    // reach this line at once, and Prisma's upsert (a read, then a create)
    // failed the later ones on the primary key.
    await database.prisma.instanceSetting.createMany({ data: [{ key, value }], skipDuplicates: true });
    const stored = await database.prisma.instanceSetting.findUniqueOrThrow({ where: { key } });
    if (stored.value !== value) {
      throw new Error(
        `${variable} differs from the key this database was set up with (fingerprint ${stored.value}, this instance has ${value}). ` +
          `Give every instance the same ${variable}.`,
      );
    }
  }
}
