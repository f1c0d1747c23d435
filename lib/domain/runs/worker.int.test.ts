import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { explainDelivery } from '@/lib/domain/automations/why-not';
import { setDatabase } from '@/lib/platform/db';
import { createFactory } from '@/lib/domain/factories/service';
import { recordAccepted } from '@/lib/ingress/record';
import { composeEnvelope } from '@/lib/domain/runs/envelope';
import { pruneRuns } from '@/lib/domain/runs/retention';
import { getRun, listRunsPage } from '@/lib/domain/runs/service';
import { runsToStart } from '@/lib/domain/runs/start';
import { MAX_OUTPUT_CHARS } from '@/lib/domain/runs/executors/types';
import { claimRun, failAbandonedRuns, finishRun, processOne, startWorkers } from '@/lib/domain/runs/worker';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { queueRuns as queueRunsOf } from '@/tests/support/runs';
import { createUser } from '@/lib/domain/users/service';
import { budget } from '@/scripts/speed.mjs';

// The run lifecycle on both databases: claiming hands each run to exactly
// one worker, a vanished worker's run fails instead of running twice, the
// HTTP executor signs with Standard Webhooks and retries with backoff, the
// command executor enforces its time limit, no executor leaves runs queued.

const SECRET = `whsec_${Buffer.from('a test secret for the executor').toString('base64')}`;

describe.each(testDatabaseKinds())('run workers on %s', (kind) => {
  let database: TestDatabase;
  let automationId: string;
  let factoryId: string;
  let webhookId: string;
  type Owner = { factoryId: string; automationId: string; webhookId: string };

  /** Queued runs, oldest first, each started by its own accepted delivery (whose body is the run's payload). */
  const queueRuns = (count: number, body = '{"n":1}', owner: Owner = { factoryId, automationId, webhookId }) => queueRunsOf(database, owner, count, body);

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    setDatabase(database);
    const user = await createUser({ email: 'w@example.com', password: 'a long enough password' }, database.prisma);
    factoryId = (await createFactory(user.id, { name: 'Workers', slug: 'workers' }, database.prisma)).id;
    automationId = (await database.prisma.automation.create({ data: { factoryId, name: 'Auto', prompt: 'Do it.' } })).id;
    webhookId = (await database.prisma.webhook.create({ data: { factoryId, uid: `wh_workers_${kind}`, name: 'hook', secretName: 'S' } })).id;
  });
  beforeEach(() => database.prisma.run.deleteMany());

  let second: Owner | undefined;
  /** Another factory, with its own automation and webhook. */
  async function secondFactory(): Promise<Owner> {
    if (second) return second;
    const user = await createUser({ email: 'other@example.com', password: 'a long enough password' }, database.prisma);
    const other = (await createFactory(user.id, { name: 'Other', slug: 'other' }, database.prisma, 'everyone')).id;
    second = {
      factoryId: other,
      automationId: (await database.prisma.automation.create({ data: { factoryId: other, name: 'Other', prompt: 'Do it.' } })).id,
      webhookId: (await database.prisma.webhook.create({ data: { factoryId: other, uid: `wh_other_${kind}`, name: 'other', secretName: 'S' } })).id,
    };
    return second;
  }
  afterAll(async () => {
    setDatabase(undefined);
    await database?.drop();
  });

  it('hands each queued run to exactly one of many concurrent claims', async () => {
    const ids = await queueRuns(20);
    const claims = await Promise.all(Array.from({ length: 40 }, (_, i) => claimRun(`worker-${i % 4}`, 60_000)));
    const claimed = claims.filter((c) => c !== null).map((c) => c.id);
    expect(claimed.sort()).toEqual([...ids].sort());
    const rows = await database.prisma.run.findMany({ select: { status: true, attempts: true, lockedBy: true, startedAt: true } });
    for (const row of rows) expect(row).toMatchObject({ status: 'running', attempts: 1, lockedBy: expect.stringMatching(/^worker-/), startedAt: expect.any(Date) });
  });

  it("is fair across factories: one factory's burst does not starve another's run", async () => {
    const other = await secondFactory();
    const burst = await queueRuns(200);
    const [single] = await queueRuns(1, '{"n":2}', other);
    // One worker, each run finishing before the next claim.
    const order: string[] = [];
    for (let i = 0; i < 6; i++) {
      const run = await claimRun('w', 60_000);
      order.push(run!.id);
      await finishRun('w', run!.id, { status: 'succeeded', output: '' });
    }
    expect(order.indexOf(single!)).toBe(1);
    // Within a factory, first in, first out.
    expect(order.filter((id) => id !== single)).toEqual(burst.slice(0, 5));
  });

  it('spreads concurrent claims over factories, and hands each run to one of them', async () => {
    const other = await secondFactory();
    await queueRuns(200);
    const [single] = await queueRuns(1, '{"n":2}', other);
    const claims = await Promise.all(Array.from({ length: 4 }, (_, i) => claimRun(`worker-${i}`, 60_000)));
    const ids = claims.map((c) => c!.id);
    expect(new Set(ids).size).toBe(4);
    expect(ids).toContain(single);
  });

  it('stops starting runs past the factory\'s queue limit: the delivery is still Accepted, and says why', async () => {
    const other = await secondFactory();
    await database.prisma.webhookTrigger.deleteMany({ where: { automationId } });
    await database.prisma.webhookTrigger.create({ data: { automationId, position: 0, webhookUid: `wh_workers_${kind}` } });
    await queueRuns(3);
    await queueRuns(1, '{}', other);
    const accept = (deliveryId: string, factory = { factoryId, webhookId }) =>
      recordAccepted({
        ...factory,
        identity: { deliveryId, source: 'service_header' },
        size: 2,
        body: '{}',
        headers: {},
        remoteAddress: null,
        runQueueLimit: 3,
        runs: runsToStart({ name: 'hook', uid: 'wh_test' }, [{ automationId, automationName: 'Auto', events: null, headerFilter: null, payloadFilter: null }], { deliveryId, text: '{}', value: {}, eventType: null, headers: {} }),
      });
    const full = await accept(`full-${kind}`);
    expect(full).toMatchObject({ limited: false, status: 'accepted', runs: 0, queueFull: true });
    const entry = await database.prisma.delivery.findUniqueOrThrow({ where: { id: (full as { id: string }).id }, include: { runs: true } });
    expect(entry).toMatchObject({ status: 'accepted', body: '{}', detail: 'run queue full: 1 run was not started (the factory already had 3 queued runs)', runs: [] });
    const why = await explainDelivery(factoryId, `wh_workers_${kind}`, entry.id);
    expect(why.note).toBe('Run queue full: this delivery was accepted but started no runs (1 run was not started (the factory already had 3 queued runs)).');
    expect(why.automations[0]!.summary).toMatch(/^Did not start: run queue full/);

    // A duplicate of it is still a Duplicate, not a second "queue full".
    expect(await accept(`full-${kind}`)).toMatchObject({ status: 'duplicate', queueFull: false, runs: 0 });
    // Another factory's queue is its own.
    const otherAutomation = other.automationId;
    const elsewhere = await recordAccepted({
      factoryId: other.factoryId,
      webhookId: other.webhookId,
      identity: { deliveryId: `elsewhere-${kind}`, source: 'service_header' },
      size: 2,
      body: '{}',
      headers: {},
      remoteAddress: null,
      runQueueLimit: 3,
      runs: [{ automationId: otherAutomation, envelope: composeEnvelope({ webhookName: 'h', webhookUid: 'wh_o', deliveryId: 'e', body: '{}' }) }],
    });
    expect(elsewhere).toMatchObject({ status: 'accepted', runs: 1, queueFull: false });
    // Once a run has left the queue, deliveries start runs again.
    await claimRun('w', 60_000);
    await claimRun('w', 60_000);
    expect(await accept(`room-${kind}`)).toMatchObject({ status: 'accepted', runs: 1, queueFull: false });
  });

  it('fails a run whose worker vanished instead of executing it again', async () => {
    const [id] = await queueRuns(1);
    expect((await claimRun('gone', 1))?.id).toBe(id);
    // About time passing: the claim's 1 ms lease must run out.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await failAbandonedRuns()).toBe(1);
    expect(await claimRun('next', 60_000)).toBeNull();
    const run = await database.prisma.run.findUniqueOrThrow({ where: { id } });
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/stopped before it finished/);
  });

  it('leaves runs queued when no executor is configured', async () => {
    await queueRuns(2);
    const pool = startWorkers({ kind: 'none' }, 2);
    await pool.done;
    expect(await database.prisma.run.count({ where: { status: 'queued' } })).toBe(2);
  });

  it('stops a command that runs past its time limit: SIGTERM to its process group, as a cancel', async () => {
    const [id] = await queueRuns(1);
    expect(await processOne('w', { kind: 'command', command: 'echo started; sleep 5', timeoutMs: 300 })).toBe(true);
    const run = await database.prisma.run.findUniqueOrThrow({ where: { id } });
    expect(run).toMatchObject({
      status: 'failed',
      error: 'The command ran longer than 0.3 s and was stopped: its process group received SIGTERM and ended within the grace period',
      output: 'started\n',
    });
    expect(run.finishedAt).toBeInstanceOf(Date);
  });

  it('on shutdown, lets a running run finish within the grace period', async () => {
    const [id] = await queueRuns(1);
    const pool = startWorkers({ kind: 'command', command: 'sleep 0.4; echo finished', timeoutMs: 10_000 }, 1);
    await expect.poll(async () => (await database.prisma.run.findUniqueOrThrow({ where: { id } })).status, { timeout: budget(5_000) }).toBe('running');
    await pool.stop(Date.now() + 5_000);
    expect(await database.prisma.run.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'succeeded', output: 'finished\n' });
  });

  it('on shutdown, stops a run still going when the grace period ends, and says why', async () => {
    const [id] = await queueRuns(1);
    // A command that would run far longer than the grace period: stop() must not wait for it.
    const commandSeconds = 30;
    const pool = startWorkers({ kind: 'command', command: `echo started; sleep ${commandSeconds}`, timeoutMs: 2 * commandSeconds * 1000 }, 1);
    await expect.poll(async () => (await database.prisma.run.findUniqueOrThrow({ where: { id } })).status, { timeout: budget(5_000) }).toBe('running');
    const stopped = Date.now();
    await pool.stop(Date.now() + 300);
    const stopMs = Date.now() - stopped;
    console.log(`stop() returned ${stopMs} ms after it was called, with a 300 ms grace period (the command alone: ${commandSeconds} s)`);
    expect(stopMs).toBeLessThan((commandSeconds * 1000) / 2);
    const run = await database.prisma.run.findUniqueOrThrow({ where: { id } });
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/shut down and its grace period \(TRIPLINE_SHUTDOWN_GRACE_SECONDS\) ended/);
  });

  it('on shutdown, puts a run claimed but not yet started back in the queue, as if never claimed', async () => {
    const [id] = await queueRuns(1);
    const stopping = new AbortController();
    stopping.abort();
    expect(await processOne('w', { kind: 'command', command: 'echo never', timeoutMs: 1_000 }, { stopping: stopping.signal })).toBe(true);
    expect(await database.prisma.run.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'queued', attempts: 0, startedAt: null, lockedBy: null, output: null });
    // Another worker then takes it up normally.
    expect(await processOne('w2', { kind: 'command', command: 'echo ran', timeoutMs: 5_000 })).toBe(true);
    expect(await database.prisma.run.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'succeeded', attempts: 1, output: 'ran\n' });
  });

  it("gives a command run an allowlisted environment and its own folder, never the server's environment", async () => {
    const canaries = { SERVER_CANARY: 'canary-7f3a', TRIPLINE_CANARY: 'tripline-canary-7f3a', SSH_AUTH_SOCK: '/tmp/agent.canary', AGENT_API_KEY: 'listed-by-the-operator' };
    Object.assign(process.env, canaries);
    try {
      const [id] = await queueRuns(1);
      const dump = `"${process.execPath}" -e 'process.stdout.write(JSON.stringify({ env: process.env, cwd: process.cwd() }))'`;
      expect(await processOne('w', { kind: 'command', command: dump, timeoutMs: 10_000, passEnv: ['AGENT_API_KEY', 'NOT_SET_ANYWHERE'] })).toBe(true);
      const run = await database.prisma.run.findUniqueOrThrow({ where: { id } });
      expect(run.status).toBe('succeeded');
      const { env, cwd } = JSON.parse(run.output!) as { env: Record<string, string>; cwd: string };

      // The shell may add its own bookkeeping (PWD, SHLVL, _); nothing else is there.
      const shell = new Set(['PWD', 'OLDPWD', 'SHLVL', '_']);
      const allowed = new Set(['PATH', 'LANG', 'TZ', 'HOME', 'AGENT_API_KEY', 'RUN_ID', 'RUN_AUTOMATION_ID', 'RUN_PAYLOAD_FILE', 'RUN_WORKER_ID', 'RUN_EVENT_TYPE']);
      expect(Object.keys(env).filter((name) => !allowed.has(name) && !shell.has(name))).toEqual([]);
      expect(env).toMatchObject({ AGENT_API_KEY: 'listed-by-the-operator', HOME: cwd, RUN_ID: id, RUN_PAYLOAD_FILE: `${cwd}/event-payload.json`, RUN_EVENT_TYPE: 'pull_request.opened' });
      expect(env.PATH).toBe(process.env.PATH);
      // The server's configuration and secrets, by name and by value.
      for (const name of ['DATABASE_URL', 'TEST_DATABASE_URL', 'TRIPLINE_SECRETS_KEY', 'TRIPLINE_AUTH_SECRET', 'TRIPLINE_DATA_DIR', 'SERVER_CANARY', 'TRIPLINE_CANARY', 'SSH_AUTH_SOCK']) {
        expect(env).not.toHaveProperty(name);
      }
      const values = Object.values(env).join('\n');
      for (const secret of [process.env.TRIPLINE_SECRETS_KEY!, process.env.TRIPLINE_AUTH_SECRET!, canaries.SERVER_CANARY, canaries.TRIPLINE_CANARY]) expect(values).not.toContain(secret);
      // Its own folder, outside the data folder, removed afterwards.
      expect(path.relative(process.env.TRIPLINE_DATA_DIR!, cwd).startsWith('..')).toBe(true);
      expect(fs.existsSync(cwd)).toBe(false);
    } finally {
      for (const name of Object.keys(canaries)) delete process.env[name];
    }
  });

  it('creates run folders under the configured work folder', async () => {
    const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-work-test-'));
    try {
      const [id] = await queueRuns(1);
      expect(await processOne('w', { kind: 'command', command: 'pwd; echo "$HOME"', timeoutMs: 10_000, workDir: path.join(workDir, 'runs') })).toBe(true);
      const run = await database.prisma.run.findUniqueOrThrow({ where: { id } });
      const [cwd, home] = run.output!.trim().split('\n');
      expect(cwd).toBe(home);
      expect(fs.realpathSync(path.dirname(cwd!))).toBe(fs.realpathSync(path.join(workDir, 'runs')));
    } finally {
      fs.rmSync(workDir, { recursive: true, force: true });
    }
  });

  it("stores a delivery's payload once, however many runs it starts, and gives each executor the body byte for byte", async () => {
    const others = await Promise.all(['Second', 'Third'].map((name) => database.prisma.automation.create({ data: { factoryId, name, prompt: 'Also.' } })));
    const body = '{ "odd":  "spacing-7c1", "n": 1.50, "e": "\\u00e9", "é": [ ] }';
    const triggers = [automationId, ...others.map((a) => a.id)].map((id) => ({ automationId: id, automationName: id, prompt: 'Do it.', events: null, headerFilter: null, payloadFilter: null }));
    const identity = { deliveryId: `once-${kind}`, source: 'service_header' as const };
    const outcome = await recordAccepted({
      webhookId,
      factoryId,
      identity,
      size: Buffer.byteLength(body),
      body,
      headers: {},
      remoteAddress: null,
      runQueueLimit: 1000,
      runs: runsToStart({ name: 'hook', uid: 'wh_test' }, triggers, { deliveryId: identity.deliveryId, text: body, value: JSON.parse(body), eventType: null, headers: {} }),
    });
    expect(outcome).toMatchObject({ limited: false, status: 'accepted', runs: 3 });
    // The body is stored on the delivery and nowhere in the runs.
    const [stored] = await database.prisma.$queryRawUnsafe<{ copies: number }[]>(
      `SELECT count(*)::int AS "copies" FROM "Run" WHERE "payload" IS NOT NULL OR "envelope"::text LIKE '%spacing-7c1%'`,
    );
    expect(stored!.copies).toBe(0);

    const claimed = await Promise.all([1, 2, 3].map(() => claimRun('w', 60_000)));
    for (const run of claimed) expect(run!.attachments).toEqual([{ name: 'event-payload.json', contentType: 'application/json', content: body }]);
    expect((await getRun(factoryId, claimed[0]!.id)).attachments).toEqual(claimed[0]!.attachments);

    // Through the command executor: the file on disk is the body, byte for byte.
    await database.prisma.run.updateMany({ data: { status: 'queued', lockedBy: null, lockedUntil: null } });
    expect(await processOne('w', { kind: 'command', command: 'cat event-payload.json', timeoutMs: 10_000 })).toBe(true);
    const executed = await database.prisma.run.findFirstOrThrow({ where: { status: 'succeeded' } });
    expect(Buffer.from(executed.output!)).toEqual(Buffer.from(body));
  });

  it('fails a run whose payload is gone instead of executing it without one', async () => {
    const [id] = await queueRuns(1);
    await database.prisma.run.update({ where: { id }, data: { deliveryId: null } });
    expect(await processOne('w', { kind: 'command', command: 'echo ran', timeoutMs: 10_000 })).toBe(true);
    expect(await database.prisma.run.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'failed', output: null, error: expect.stringMatching(/no longer stored/) });
  });

  it('POSTs the run signed with Standard Webhooks, retrying with backoff until it succeeds', async () => {
    const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
    const server = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        received.push({ headers: request.headers, body });
        response.statusCode = received.length === 1 ? 503 : 200;
        response.end(received.length === 1 ? 'busy' : 'accepted by the agent');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/runs`;
    const executor = { kind: 'http' as const, url, secret: SECRET, attempts: 3, timeoutMs: 5_000 };
    try {
      const [id] = await queueRuns(1, '{"issue": 7}');
      const attempted = Date.now();
      expect(await processOne('w', executor)).toBe(true);
      let run = await database.prisma.run.findUniqueOrThrow({ where: { id } });
      expect(run).toMatchObject({ status: 'queued', attempts: 1, lockedBy: null, output: 'busy' });
      expect(run.error).toBe('The executor URL answered HTTP 503 (attempt 1 of 3; retrying in 10 s)');
      // Not before its backoff has passed: 10 s after the attempt ended (a second's leeway for the clocks' rounding).
      expect(run.lockedUntil!.getTime()).toBeGreaterThan(attempted + 9_000);
      expect(await processOne('w', executor)).toBe(false);

      await database.prisma.run.update({ where: { id }, data: { lockedUntil: new Date(Date.now() - 1) } });
      expect(await processOne('w', executor)).toBe(true);
      run = await database.prisma.run.findUniqueOrThrow({ where: { id } });
      expect(run).toMatchObject({ status: 'succeeded', attempts: 2, output: 'accepted by the agent', error: null });

      expect(received).toHaveLength(2);
      for (const request of received) {
        // The receiver's own check, with the standardwebhooks package: throws on a bad signature.
        const payload = new Webhook(SECRET).verify(request.body, request.headers as Record<string, string>) as { run: Record<string, unknown> };
        expect(request.headers['webhook-id']).toBe(id);
        expect(payload.run).toMatchObject({ id, prompt: 'Do it.', attachments: [{ name: 'event-payload.json', content: '{"issue": 7}' }] });
        expect(payload.run.composedPrompt).toMatch(/^Do it\.\n\n---\nThis run was started by a webhook delivery\./);
      }
      expect(() => new Webhook(SECRET).verify(`${received[0]!.body} `, received[0]!.headers as Record<string, string>)).toThrow();

      // Out of attempts: failed for good.
      const [last] = await queueRuns(1);
      await database.prisma.run.update({ where: { id: last }, data: { attempts: 2 } });
      server.removeAllListeners('request');
      server.on('request', (_request, response) => {
        response.statusCode = 500;
        response.end();
      });
      expect(await processOne('w', executor)).toBe(true);
      expect(await database.prisma.run.findUniqueOrThrow({ where: { id: last } })).toMatchObject({
        status: 'failed',
        attempts: 3,
        error: 'The executor URL answered HTTP 500 (attempt 3 of 3; no attempts left)',
      });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("keeps the tail of an executor URL's answer, however long, read as it arrives", async () => {
    // 4,000,000 bytes of "é" (two bytes each) in chunks of an odd size: every chunk boundary splits a character.
    const body = Buffer.from('é'.repeat(2_000_000), 'utf8');
    const server = http.createServer((request, response) => {
      request.resume();
      request.on('end', async () => {
        response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        for (let at = 0; at < body.length; at += 65_537) {
          if (!response.write(body.subarray(at, at + 65_537))) await new Promise((resolve) => response.once('drain', resolve));
        }
        response.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/runs`;
    try {
      const [id] = await queueRuns(1);
      expect(await processOne('w', { kind: 'http' as const, url, secret: SECRET, attempts: 1, timeoutMs: 30_000 })).toBe(true);
      const run = await database.prisma.run.findUniqueOrThrow({ where: { id } });
      expect(run.status).toBe('succeeded');
      expect(run.output).toBe(`[… ${(2_000_000 - MAX_OUTPUT_CHARS).toLocaleString('en-US')} earlier characters cut]\n${'é'.repeat(MAX_OUTPUT_CHARS)}`);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('lists runs a page at a time, newest first, each once, runs created in the same millisecond included', async () => {
    const ids = await queueRuns(7);
    // Three share a creation time: their ids order them.
    const same = new Date(Date.now() - 5_000);
    await database.prisma.run.updateMany({ where: { id: { in: ids.slice(2, 5) } }, data: { createdAt: same } });
    const expected = (await database.prisma.run.findMany({ where: { factoryId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], select: { id: true } })).map((run) => run.id);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const result = await listRunsPage(factoryId, { automation: automationId, limit: 2, cursor });
      seen.push(...result.runs.map((run) => run.id));
      if (!result.nextCursor) break;
      cursor = result.nextCursor;
    }
    expect(seen).toEqual(expected);
    await expect(listRunsPage(factoryId, { cursor: 'not a cursor' })).rejects.toMatchObject({ code: 'validation_failed', fields: { cursor: 'Use the nextCursor of a previous page' } });
  });

  // A second connection holds the run's row and ends the worker's own: only PostgreSQL has both.
  if (kind === 'postgres') {
    it("records a run's outcome after the database dropped the connection that was recording it", async () => {
      const [id] = await queueRuns(1);
      const other = new pg.Client({ connectionString: database.url });
      await other.connect();
      try {
        // The run's row is held, so the worker's update waits in flight; then its connection is ended (57P01).
        // The program ends once the test holds the row (the file appears), so its update always finds it held.
        const go = path.join(os.tmpdir(), `tripline-finish-${process.pid}-${Date.now()}`);
        const processing = processOne('w', { kind: 'command', command: `while [ ! -e '${go}' ]; do sleep 0.02; done; echo done`, timeoutMs: budget(60_000) });
        await vi.waitFor(async () => expect((await other.query(`SELECT 1 FROM "Run" WHERE "id" = $1 AND "status" = 'running'`, [id])).rowCount).toBe(1), { timeout: budget(10_000), interval: 20 });
        await other.query('BEGIN');
        await other.query(`SELECT 1 FROM "Run" WHERE "id" = $1 FOR UPDATE`, [id]);
        fs.writeFileSync(go, '');
        let blocked = 0;
        await vi.waitFor(
          async () => {
            // Within a transaction the activity view is read once unless cleared.
            await other.query('SELECT pg_stat_clear_snapshot()');
            const rows = await other.query(`SELECT "pid" FROM pg_stat_activity WHERE "datname" = current_database() AND "wait_event_type" = 'Lock' AND "pid" <> pg_backend_pid()`);
            blocked = rows.rows[0]?.pid ?? 0;
            expect(blocked).toBeGreaterThan(0);
          },
          { timeout: budget(10_000), interval: 20 },
        );
        await other.query('SELECT pg_terminate_backend($1)', [blocked]);
        await other.query('COMMIT');
        expect(await processing).toBe(true);
        expect(await database.prisma.run.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'succeeded', output: 'done\n', lockedBy: null });
      } finally {
        await other.end();
      }
    });
  }

  it('prunes finished runs past the retention period, never queued or running ones', async () => {
    const [oldDone, oldFailed, recent, queued, running] = await queueRuns(5);
    const now = new Date('2026-11-23T12:00:00Z');
    const daysAgo = (days: number) => new Date(now.getTime() - days * 24 * 60 * 60 * 1000);
    await database.prisma.run.update({ where: { id: oldDone }, data: { status: 'succeeded', finishedAt: daysAgo(91) } });
    await database.prisma.run.update({ where: { id: oldFailed }, data: { status: 'failed', finishedAt: daysAgo(120) } });
    await database.prisma.run.update({ where: { id: recent }, data: { status: 'succeeded', finishedAt: daysAgo(89) } });
    await database.prisma.run.update({ where: { id: queued }, data: { createdAt: daysAgo(200) } });
    await database.prisma.run.update({ where: { id: running }, data: { status: 'running', startedAt: daysAgo(200) } });

    expect(await pruneRuns(0, database.prisma, now)).toBe(0);
    expect(await pruneRuns(90, database.prisma, now)).toBe(2);
    const left = await database.prisma.run.findMany({ select: { id: true } });
    expect(left.map((r) => r.id).sort()).toEqual([recent, queued, running].sort());
  });
});
