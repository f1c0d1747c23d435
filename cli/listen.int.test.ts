import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budget } from '@/scripts/speed.mjs';
import { cliArgs } from '@/tests/support/bundle';

// `tripline listen` as a real process, against a stand-in for a Tripline
// server that streams one accepted delivery (the real server's stream and the
// command against it: e2e/api/listen.spec.ts): what it refuses before it
// sends the API token anywhere, how it writes its state file, and where it
// takes the --resign secret from.

const root = path.resolve(import.meta.dirname, '..');
const TOKEN = 'tl_listen_cli_test_token';
const WHSEC = 'whsec_' + Buffer.from('a local receiver secret!').toString('base64');
const BODY = '{"order":1}';

type Seen = { url: string; authorization?: string };

/** A stand-in for the server's GET .../deliveries/stream: one accepted delivery, then an open stream; a resumed stream stays quiet. */
async function streamServer(host: string) {
  const requests: Seen[] = [];
  const server = http.createServer((req, res) => {
    requests.push({ url: req.url ?? '', authorization: req.headers.authorization });
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
    if (new URL(req.url ?? '/', 'http://x').searchParams.has('after')) return void res.write(': resumed\n\n');
    const entry = {
      id: 'dl_1',
      deliveryId: 'order-1',
      status: 'accepted',
      receivedAt: new Date().toISOString(),
      eventType: 'order.created',
      detail: null,
      body: BODY,
      bodyEncoding: 'utf8',
      headers: { 'content-type': 'application/json', authorization: '[redacted]' },
      signatureHeaders: 'none',
    };
    res.write(`id: dl_1\nevent: delivery\ndata: ${JSON.stringify(entry)}\n\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    requests,
    port,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The local receiver --forward points at: records each POST. */
async function receiver() {
  const received: { body: string; headers: http.IncomingHttpHeaders }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { received, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** `tripline listen` with a laptop's environment (no database, no keys), plus `env`. */
function listener(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, cliArgs(['listen', ...args]), {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: os.tmpdir(), NO_COLOR: '1', ...env } as unknown as NodeJS.ProcessEnv,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    exited,
    output: () => ({ stdout, stderr }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** An address of this machine that is not loopback (http:// to it crosses a network interface), else 0.0.0.0 (which Linux connects to locally). */
function nonLoopbackHost(): { host: string; bind: string } {
  const address = Object.values(os.networkInterfaces())
    .flat()
    .find((info) => info && !info.internal && info.family === 'IPv4')?.address;
  return address ? { host: address, bind: address } : { host: '0.0.0.0', bind: '127.0.0.1' };
}

describe('tripline listen, as a process', () => {
  let local: Awaited<ReturnType<typeof receiver>>;
  let scratch: string;
  beforeAll(async () => {
    local = await receiver();
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-listen-cli-'));
  });
  afterAll(async () => {
    await local?.close();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  const common = (server: string, stateFile: string) => ['--url', server, '--factory', 'acme', '--webhook', 'wh_1', '--forward', local.url, '--state-file', stateFile];

  it('refuses an http:// server on another host before sending the token, unless --insecure', async () => {
    const { host, bind } = nonLoopbackHost();
    const server = await streamServer(bind);
    try {
      const url = `http://${host}:${server.port}`;
      const refused = listener([...common(url, path.join(scratch, 'refused.json')), '--token', TOKEN]);
      // Refused at once; a listener that went ahead would connect and stay connected.
      await expect.poll(() => refused.child.exitCode !== null || server.requests.length > 0, { timeout: budget(30_000) }).toBe(true);
      await refused.stop();
      expect(server.requests, 'the server saw no request, so no token').toEqual([]);
      expect(refused.child.exitCode).toBe(2);
      expect(refused.output().stderr).toContain(`--url ${url} is http:// on another host: the API token would cross the network in clear. Use https://, or add --insecure`);

      // The user's explicit choice: the same URL with --insecure connects, with the token.
      const insecure = listener([...common(url, path.join(scratch, 'insecure.json')), '--token', TOKEN, '--insecure']);
      try {
        await expect.poll(() => server.requests.length, { timeout: budget(30_000) }).toBeGreaterThan(0);
        expect(server.requests[0]).toMatchObject({ authorization: `Bearer ${TOKEN}` });
      } finally {
        await insecure.stop();
      }
    } finally {
      await server.close();
    }
  });

  it('writes its state through a new file of a random name: a link planted at a predictable name is not followed, and nothing is left behind', async () => {
    const server = await streamServer('127.0.0.1');
    const dir = fs.mkdtempSync(path.join(scratch, 'state-'));
    const stateFile = path.join(dir, 'state.json');
    const victim = path.join(scratch, 'victim.txt');
    fs.writeFileSync(victim, 'not yours\n');
    try {
      // Loopback: http:// needs no --insecure.
      const running = listener([...common(`http://127.0.0.1:${server.port}`, stateFile), '--token', TOKEN]);
      // Another user of a shared folder plants a link at the name the state was written through (<file>.<pid>.tmp), before the first write.
      const planted = `${stateFile}.${running.child.pid}.tmp`;
      fs.symlinkSync(victim, planted);
      try {
        await expect.poll(() => local.received.length, { timeout: budget(30_000) }).toBe(1);
        await expect.poll(() => (fs.existsSync(stateFile) ? JSON.parse(fs.readFileSync(stateFile, 'utf8')).after : null), { timeout: budget(20_000) }).toBe('dl_1');
      } finally {
        expect(await running.stop()).toBe(0);
      }
      expect(fs.readFileSync(victim, 'utf8')).toBe('not yours\n');
      const stat = fs.lstatSync(stateFile);
      expect(stat.isFile(), 'the state file is a file of its own, not the planted link').toBe(true);
      expect((stat.mode & 0o777).toString(8)).toBe('600');
      // The state file, and the planted link left as it was: no temporary file remains.
      expect(fs.readdirSync(dir).sort()).toEqual([path.basename(stateFile), path.basename(planted)].sort());
      expect(fs.readlinkSync(planted)).toBe(victim);
    } finally {
      local.received.length = 0;
      await server.close();
    }
  });

  it('takes the --resign secret from TRIPLINE_RESIGN_SECRET (out of the process list), and says when it is not one', async () => {
    const server = await streamServer('127.0.0.1');
    try {
      const running = listener([...common(`http://localhost:${server.port}`, path.join(scratch, 'resign.json')), '--token', TOKEN], { TRIPLINE_RESIGN_SECRET: WHSEC });
      try {
        await expect.poll(() => local.received.length, { timeout: budget(30_000) }).toBe(1);
      } finally {
        await running.stop();
      }
      const [got] = local.received;
      const verified = new Webhook(WHSEC).verify(got!.body, {
        'webhook-id': String(got!.headers['webhook-id']),
        'webhook-timestamp': String(got!.headers['webhook-timestamp']),
        'webhook-signature': String(got!.headers['webhook-signature']),
      });
      expect(verified).toEqual({ order: 1 });

      const wrong = listener([...common(`http://localhost:${server.port}`, path.join(scratch, 'wrong.json')), '--token', TOKEN], { TRIPLINE_RESIGN_SECRET: 'not-a-secret' });
      try {
        await expect.poll(() => wrong.child.exitCode, { timeout: budget(30_000) }).toBe(2);
      } finally {
        await wrong.stop();
      }
      expect(wrong.output().stderr).toContain('TRIPLINE_RESIGN_SECRET must be a Standard Webhooks secret: whsec_ followed by base64');
    } finally {
      local.received.length = 0;
      await server.close();
    }
  });
});
