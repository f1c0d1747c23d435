import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory, Transaction } from '@prisma/driver-adapter-utils';

// Prisma runs the parts of one query plan side by side (a write that returns
// several relations, for one), and inside an interactive transaction they all
// go to that transaction's one connection. pg queues them on the connection,
// but pg 8.19 deprecated that queue (the server printed a DeprecationWarning)
// and pg 9 removes it: the second query would fail. Until
// @prisma/adapter-pg orders them itself (prisma/orm pull request 29979), a
// transaction's statements go out one after another here. pg ran them one at
// a time anyway, so nothing waits longer than it did.

/** What a transaction does on its connection: each waits for the one before. */
const SERIAL = new Set<PropertyKey>(['queryRaw', 'executeRaw', 'createSavepoint', 'rollbackToSavepoint', 'releaseSavepoint', 'commit', 'rollback']);

/** A PostgreSQL adapter factory whose transactions send one statement at a time. */
export function serialTransactions<F extends SqlMigrationAwareDriverAdapterFactory>(factory: F): F {
  return passThrough(factory, {
    connect: () => async () => serialAdapter(await factory.connect()),
    connectToShadowDb: () => async () => serialAdapter(await factory.connectToShadowDb()),
  });
}

function serialAdapter(adapter: SqlDriverAdapter): SqlDriverAdapter {
  return passThrough(adapter, {
    startTransaction: () => async (isolationLevel?: Parameters<SqlDriverAdapter['startTransaction']>[0]) => serialTransaction(await adapter.startTransaction(isolationLevel)),
  });
}

function serialTransaction(transaction: Transaction): Transaction {
  let tail: Promise<unknown> = Promise.resolve();
  return new Proxy(transaction, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown;
      if (typeof value !== 'function') return value;
      if (!SERIAL.has(key)) return value.bind(target);
      return (...args: unknown[]) => {
        const result = tail.then(() => value.apply(target, args));
        tail = result.catch(() => undefined);
        return result;
      };
    },
  });
}

/**
 * The object as it is (its own methods bound to it, so they see the real
 * object), but for the methods `override` replaces; writes go to the object.
 */
function passThrough<T extends object>(object: T, override: Record<string, () => unknown>): T {
  return new Proxy(object, {
    get(target, key) {
      const replace = typeof key === 'string' && Object.hasOwn(override, key) ? override[key] : undefined;
      if (replace) return replace();
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
