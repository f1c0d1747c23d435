import 'server-only';
import { z } from 'zod';
import { prisma, type DbOrTx, type Tx } from '@/lib/platform/db';
import { decryptSecret, encryptSecret } from '@/lib/platform/crypto/encryption';
import { AppError } from '@/lib/platform/http/errors';
import { lockFactory } from '@/lib/platform/db/locks';
import { createSecretSchema, secretNameSchema, secretValueSchema, type CreateSecretInput } from '@/lib/domain/secrets/schemas';

// Team secrets: factory-scoped, write-only values encrypted at rest. Nothing
// here returns a value except readSecretValue(), which only the webhook
// service calls to resolve a credential when a definition applies.

export type SecretSummary = {
  name: string;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  usedBy: Array<{ uid: string; name: string }>;
};

const context = (factoryId: string, name: string) => `team-secret:${factoryId}:${name}`;

export async function listSecrets(factoryId: string, db: DbOrTx = prisma): Promise<SecretSummary[]> {
  const [secrets, webhooks] = await Promise.all([
    db.teamSecret.findMany({
      where: { factoryId },
      select: { name: true, version: true, createdAt: true, updatedAt: true },
      orderBy: { name: 'asc' },
    }),
    db.webhook.findMany({ where: { factoryId, deletedAt: null }, select: { uid: true, name: true, secretName: true } }),
  ]);
  return secrets.map((secret) => ({
    ...secret,
    usedBy: webhooks.filter((w) => w.secretName === secret.name).map((w) => ({ uid: w.uid, name: w.name })),
  }));
}

const exists = (name: string) =>
  new AppError('conflict', `A secret named ${name} already exists`, { name: `A secret named ${name} already exists` });

/**
 * Team secrets a factory holds at most: far more than its 20 webhooks and their connections need
 * (a deleted webhook leaves its secret, for the admin to delete), but not an unbounded store that
 * one list reads whole.
 */
export const MAX_SECRETS_PER_FACTORY = 1_000;

/** Refuses a new secret past the factory's bound (under the factory's row lock, so two creations cannot both pass). */
async function refuseNewSecretPastBound(tx: Tx, factoryId: string): Promise<void> {
  await lockFactory(tx, factoryId);
  if ((await tx.teamSecret.count({ where: { factoryId } })) >= MAX_SECRETS_PER_FACTORY) {
    throw new AppError('conflict', `A factory can have at most ${MAX_SECRETS_PER_FACTORY.toLocaleString('en-US')} team secrets. Delete one you no longer use to add another.`);
  }
}

export async function createSecretTx(tx: Tx, factoryId: string, name: string, value: string) {
  if (await tx.teamSecret.findUnique({ where: { factoryId_name: { factoryId, name } }, select: { id: true } })) {
    throw exists(name);
  }
  await refuseNewSecretPastBound(tx, factoryId);
  return tx.teamSecret.create({
    data: { factoryId, name, valueEncrypted: encryptSecret(value, context(factoryId, name)) },
    select: { name: true, version: true },
  });
}

export async function createSecret(factoryId: string, input: CreateSecretInput, db = prisma) {
  const data = createSecretSchema.parse(input);
  try {
    return await db.$transaction((tx) => createSecretTx(tx, factoryId, data.name, data.value));
  } catch (error) {
    if ((error as { code?: string }).code === 'P2002') throw exists(data.name);
    throw error;
  }
}

/** Sets a secret's value, creating the secret if needed. Webhooks take a new value up when they next apply. */
export async function putSecretTx(tx: Tx, factoryId: string, name: string, value: string) {
  if (!(await tx.teamSecret.findUnique({ where: { factoryId_name: { factoryId, name } }, select: { id: true } }))) await refuseNewSecretPastBound(tx, factoryId);
  const valueEncrypted = encryptSecret(value, context(factoryId, name));
  return tx.teamSecret.upsert({
    where: { factoryId_name: { factoryId, name } },
    create: { factoryId, name, valueEncrypted },
    update: { valueEncrypted, version: { increment: 1 } },
    select: { name: true, version: true, createdAt: true, updatedAt: true },
  });
}

export async function putSecret(factoryId: string, name: string, value: string, db = prisma) {
  // As an object, so that a refusal names its field (name, value), not the whole input.
  const { name: secretName, value: secretValue } = z.object({ name: secretNameSchema, value: secretValueSchema }).parse({ name, value });
  return db.$transaction(async (tx) => {
    const existed = await tx.teamSecret.findUnique({ where: { factoryId_name: { factoryId, name: secretName } }, select: { id: true } });
    const secret = await putSecretTx(tx, factoryId, secretName, secretValue);
    return { secret, created: !existed };
  });
}

export async function replaceSecretValue(factoryId: string, name: string, value: string, db = prisma) {
  const secretValue = secretValueSchema.parse(value);
  return db.$transaction(async (tx) => {
    const existing = await tx.teamSecret.findUnique({ where: { factoryId_name: { factoryId, name } }, select: { id: true } });
    if (!existing) throw new AppError('not_found', `No secret named ${name}`);
    return putSecretTx(tx, factoryId, name, secretValue);
  });
}

export async function deleteSecret(factoryId: string, name: string, db = prisma): Promise<void> {
  await db.$transaction(async (tx) => {
    const users = await tx.webhook.findMany({ where: { factoryId, secretName: name, deletedAt: null }, select: { name: true } });
    if (users.length > 0) {
      const names = users.map((u) => u.name).join(', ');
      throw new AppError('conflict', `${name} is used by ${users.length === 1 ? 'the webhook' : 'the webhooks'} ${names}. Delete ${users.length === 1 ? 'it' : 'them'} first.`);
    }
    if (await tx.webhookConnection.findFirst({ where: { factoryId, credentialSecretName: name }, select: { id: true } })) {
      throw new AppError('conflict', `${name} is the API credential of a connection. Disconnect it first.`);
    }
    const { count } = await tx.teamSecret.deleteMany({ where: { factoryId, name } });
    if (count === 0) throw new AppError('not_found', `No secret named ${name}`);
  });
}

/** The clear value and version of a team secret, or null when it does not exist. */
export async function readSecretValue(
  db: DbOrTx,
  factoryId: string,
  name: string,
): Promise<{ value: string; version: number } | null> {
  const secret = await db.teamSecret.findUnique({
    where: { factoryId_name: { factoryId, name } },
    select: { valueEncrypted: true, version: true },
  });
  if (!secret) return null;
  return { value: decryptSecret(secret.valueEncrypted, context(factoryId, name)), version: secret.version };
}
