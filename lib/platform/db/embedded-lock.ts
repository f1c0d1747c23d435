import 'server-only';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { servedByEntry } from '@/lib/platform/entry/client-address';

// One process at a time may open the embedded database (PGlite is a single
// connection; two processes on one folder would corrupt it). The lock is a
// Unix domain socket that the holder listens on, beside the database folder
// (<data>/pglite.lock for <data>/pglite), for as long as it lives:
//
// - The operating system ends the listening socket when its process dies,
//   however it dies (SIGKILL, OOM, power loss: a reboot starts with none).
//   The socket file stays behind, but connecting to it is then refused, so
//   a stale lock is recognised at once and replaced. Nothing depends on
//   process ids, which repeat after a reboot or in containers (the PID file
//   this replaces refused to start when the old PID now belonged to an
//   unrelated process, or to the new process itself, and refused a restart
//   0.5 s after a SIGKILL because the killed process was not reaped yet).
// - Binding is atomic: of two processes, one gets EADDRINUSE.
// - The socket is also a local channel to the holder: a second process asks
//   it who it is (for the refusal message), and `tripline backup` asks a
//   running server for a consistent copy of its database. The socket is
//   created mode 0600, so only the data folder's owner can connect.
//
// Why not flock(2): Node has no flock in core, and the maintained addons
// (fs-ext, os-lock) build native code at install, which `npm install` on a
// machine without a compiler (slim containers) cannot do. PGlite has no lock
// of its own (its postmaster.pid holds a fake pid, -42). Not for network
// file systems shared between machines: neither would be.

export type HolderInfo = { pid: number; process: string; since: string };

export type LockRequest = { op: string };

/** What a request handler answers: a JSON header and, optionally, bytes that follow it. */
export type LockReply = { header: Record<string, unknown>; body?: Buffer };

export type LockRequestHandler = (request: LockRequest) => Promise<LockReply>;

export type EmbeddedLock = {
  socketPath: string;
  /** Answers requests of this op from other processes (e.g. 'backup'). */
  handle: (op: string, handler: LockRequestHandler) => void;
  release: () => void;
};

export class EmbeddedDatabaseBusyError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: HolderInfo | undefined,
  ) {
    super(
      `The embedded database in ${dataDir} is in use by ${describeHolder(holder)}. ` +
        'Stop that process first, or run against PostgreSQL with DATABASE_URL.',
    );
    this.name = 'EmbeddedDatabaseBusyError';
  }
}

export function describeHolder(holder: HolderInfo | undefined): string {
  return holder ? `process ${holder.pid} (${holder.process}, since ${holder.since})` : 'another process that does not answer';
}

/** The lock socket of an embedded database folder. */
export function lockSocketPath(dataDir: string): string {
  const resolved = path.resolve(dataDir);
  return path.join(path.dirname(resolved), `${path.basename(resolved)}.lock`);
}

const HELLO_TIMEOUT_MS = 3_000;

/**
 * Takes the lock of the embedded database in dataDir, or fails with
 * EmbeddedDatabaseBusyError naming the process that holds it. The lock is
 * held until release() or until this process ends.
 */
export async function acquireEmbeddedLock(dataDir: string): Promise<EmbeddedLock> {
  const socketPath = lockSocketPath(dataDir);
  // Created as the data folder's other parts are (lib/platform/private-files.ts).
  fs.mkdirSync(path.dirname(socketPath), { recursive: true, mode: 0o700 });
  const handlers = new Map<string, LockRequestHandler>();
  const since = new Date().toISOString();
  const info: HolderInfo = { pid: process.pid, process: describeThisProcess(), since };

  for (let attempt = 0; attempt < 5; attempt++) {
    const server = net.createServer((connection) => serveConnection(connection, info, handlers));
    const outcome = await listen(server, socketPath);
    if (outcome === 'listening') {
      server.unref();
      // Left by the PID-file lock this replaces; it would only confuse.
      fs.rmSync(path.join(dataDir, 'tripline.lock'), { force: true });
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        process.off('exit', release);
        // Closing a listening Unix socket also removes its file.
        server.close();
      };
      process.on('exit', release);
      return { socketPath, handle: (op, handler) => handlers.set(op, handler), release };
    }
    // EADDRINUSE: a live holder, or the file a dead one left.
    const probe = await probeHolder(socketPath);
    if (probe.state === 'live') throw new EmbeddedDatabaseBusyError(dataDir, probe.holder);
    if (probe.state === 'stale') removeStaleSocket(socketPath, probe.inode);
    // 'gone': the file vanished between bind and connect, or its holder died while answering; try again.
    if (probe.state === 'gone') await new Promise((resolve) => setTimeout(resolve, 20 * (attempt + 1)));
  }
  throw new Error(`Could not lock the embedded database in ${dataDir} (its lock ${socketPath} keeps changing hands)`);
}

type Probe = { state: 'live'; holder: HolderInfo | undefined } | { state: 'stale'; inode: number } | { state: 'gone' };

async function probeHolder(socketPath: string): Promise<Probe> {
  const before = fs.lstatSync(socketPath, { throwIfNoEntry: false });
  if (!before) return { state: 'gone' };
  if (!before.isSocket()) {
    throw new Error(`${socketPath} is not a lock socket; move it away if nothing else uses it`);
  }
  try {
    const { header } = await request(socketPath, { op: 'hello' }, HELLO_TIMEOUT_MS);
    return { state: 'live', holder: header as unknown as HolderInfo };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ECONNREFUSED') return { state: 'stale', inode: before.ino };
    if (code === 'ENOENT') return { state: 'gone' };
    // The holder was dying (killed) as it took the connection: the kernel reset it. The next probe finds it refused.
    if (code === 'ECONNRESET' || code === 'EPIPE') return { state: 'gone' };
    if (code === 'ETIMEDOUT' || code === 'ERR_LOCK_PROTOCOL') return { state: 'live', holder: undefined };
    throw error;
  }
}

// Removes a dead holder's socket file without ever removing a live one: the
// file is moved aside first (atomic), and if what was moved is not the inode
// found dead (another process replaced it in between) it is linked back.
function removeStaleSocket(socketPath: string, deadInode: number): void {
  const aside = `${socketPath}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    fs.renameSync(socketPath, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    if (fs.lstatSync(aside).ino !== deadInode) {
      try {
        fs.linkSync(aside, socketPath);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
  } finally {
    fs.rmSync(aside, { force: true });
  }
}

function listen(server: net.Server, socketPath: string): Promise<'listening' | 'in-use'> {
  return withShortPath(socketPath, (bindPath) =>
    new Promise((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException) => {
        server.off('listening', onListening);
        if (error.code === 'EADDRINUSE') resolve('in-use');
        else reject(error);
      };
      const onListening = () => {
        server.off('error', onError);
        // Created 0600 (the umask below); chmod again in case the platform ignores it.
        fs.chmodSync(socketPath, 0o600);
        resolve('listening');
      };
      server.once('error', onError);
      server.once('listening', onListening);
      // The socket file is created by bind() inside listen(): the umask
      // keeps other users from connecting to it from its first moment.
      const umask = process.umask(0o177);
      try {
        server.listen({ path: bindPath, exclusive: true });
      } finally {
        process.umask(umask);
      }
    }),
  );
}

// --- The channel: one JSON line each way, then optional bytes -----------------

function serveConnection(connection: net.Socket, info: HolderInfo, handlers: Map<string, LockRequestHandler>): void {
  connection.unref();
  connection.on('error', () => {});
  let buffered = '';
  const onData = (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const newline = buffered.indexOf('\n');
    if (newline === -1) {
      if (buffered.length > 4096) connection.destroy();
      return;
    }
    connection.off('data', onData);
    void answer(buffered.slice(0, newline));
  };
  const answer = async (line: string) => {
    let reply: LockReply;
    try {
      const parsed = JSON.parse(line) as LockRequest;
      const handler = handlers.get(parsed.op);
      if (parsed.op === 'hello') reply = { header: { ...info } };
      else if (handler) reply = await handler(parsed);
      else reply = { header: { error: `unsupported request "${String(parsed.op)}"` } };
    } catch (error) {
      reply = { header: { error: error instanceof Error ? error.message : String(error) } };
    }
    const header = { ...reply.header, bytes: reply.body?.length ?? 0 };
    connection.write(`${JSON.stringify(header)}\n`);
    if (reply.body) connection.write(reply.body);
    connection.end();
  };
  connection.on('data', onData);
}

/**
 * Sends one request to the process holding the lock socket. Fails with the
 * connect error's code (ECONNREFUSED: nobody holds it; ENOENT: no socket).
 */
export function request(socketPath: string, message: LockRequest, timeoutMs: number): Promise<LockReply> {
  return withShortPath(socketPath, (connectPath) =>
    new Promise<LockReply>((resolve, reject) => {
      const socket = net.connect({ path: connectPath });
      const chunks: Buffer[] = [];
      const timer = setTimeout(() => {
        socket.destroy();
        reject(Object.assign(new Error(`No answer on ${socketPath} within ${timeoutMs} ms`), { code: 'ETIMEDOUT' }));
      }, timeoutMs);
      socket.on('connect', () => socket.write(`${JSON.stringify(message)}\n`));
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      socket.on('end', () => {
        clearTimeout(timer);
        const all = Buffer.concat(chunks);
        const newline = all.indexOf(0x0a);
        try {
          if (newline === -1) throw new Error('no header');
          const header = JSON.parse(all.subarray(0, newline).toString('utf8')) as Record<string, unknown>;
          const body = all.subarray(newline + 1);
          if (body.length !== header.bytes) throw new Error(`expected ${String(header.bytes)} bytes, got ${body.length}`);
          resolve({ header, body });
        } catch (error) {
          reject(Object.assign(new Error(`Unexpected answer on ${socketPath}: ${(error as Error).message}`), { code: 'ERR_LOCK_PROTOCOL' }));
        }
      });
    }),
  );
}

// A Unix socket's path is limited to about 100 bytes (104 on macOS, 108 on
// Linux). A longer one is reached through a short symbolic link to its folder
// in the temporary folder: bind and connect follow it to the same file.
const MAX_SOCKET_PATH = 100;

async function withShortPath<T>(socketPath: string, fn: (usable: string) => Promise<T>): Promise<T> {
  if (Buffer.byteLength(socketPath) <= MAX_SOCKET_PATH) return fn(socketPath);
  const linkDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-'));
  const alias = path.join(linkDir, 'd');
  fs.symlinkSync(path.dirname(socketPath), alias);
  try {
    return await fn(path.join(alias, path.basename(socketPath)));
  } finally {
    fs.rmSync(linkDir, { recursive: true, force: true });
  }
}

// "tripline server" or "tripline.ts backup": enough to recognise the holder,
// and never its later arguments (a command line may carry a password).
export function describeThisProcess(): string {
  if (servedByEntry()) return 'tripline server';
  const script = process.argv[1] ? path.basename(process.argv[1]) : path.basename(process.execPath);
  const command = process.argv[2] && !process.argv[2].startsWith('-') ? ` ${process.argv[2]}` : '';
  return `${script}${command}`;
}
