import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { setDatabase } from '@/lib/platform/db';
import { metrics } from '@/lib/platform/metrics';
import { cancelRun } from '@/lib/domain/runs/cancel';
import { getRun } from '@/lib/domain/runs/service';
import { CANCEL_POLL_MS, claimRun, failAbandonedRuns, finishRun, startWorkers } from '@/lib/domain/runs/worker';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { queueRuns, runOwner, type RunOwner } from '@/tests/support/runs';
import { budget } from '@/scripts/speed.mjs';

// Cancelling runs on both databases: a run that has not started ends at once
// and is never claimed; a running one is stopped by the worker pool that
// holds it, within about a second, when the request is made elsewhere (the
// scheduler's UPDATE, another instance: here another pool with its own worker
// ID on the same database); a run whose worker vanished ends cancelled, not
// failed; the HTTP executor aborts its request and tells the receiver.

const SECRET = `whsec_${Buffer.from('a test secret for the executor').toString('base64')}`;
const EDITOR = { email: 'editor@example.com' };

describe.each(testDatabaseKinds())('cancelling runs on %s', (kind) => {
  let database: TestDatabase;
  let owner: RunOwner;
  const run = (id: string) => database.prisma.run.findUniqueOrThrow({ where: { id } });
  /** What another instance, or the scheduler, does to cancel a run: set the request, nothing else. */
  const requestCancel = (id: string) => database.prisma.run.update({ where: { id }, data: { cancelRequestedAt: new Date() } });
  const cancelledCount = async (executor: string) =>
    (await metrics().runs.get()).values.find((value) => value.labels.outcome === 'cancelled' && value.labels.executor === executor)?.value ?? 0;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    setDatabase(database);
    owner = await runOwner(database, `cancel-${kind}`);
  });
  beforeEach(() => database.prisma.run.deleteMany());
  afterAll(async () => {
    setDatabase(undefined);
    await database?.drop();
  });

  it('ends a queued run at once, never claimed, naming who cancelled it; again changes nothing; an ended run is a conflict', async () => {
    const [id, done] = await queueRuns(database, owner, 2);
    const view = await cancelRun(owner.factoryId, id!, EDITOR);
    expect(view).toMatchObject({ status: 'cancelled', error: 'The run was cancelled before it started.', cancel: { delivery: null, by: EDITOR.email } });
    expect(view.finishedAt).toBeInstanceOf(Date);
    expect((await claimRun('w', 60_000))?.id).toBe(done);
    expect(await claimRun('w', 60_000)).toBeNull();

    // A second cancel, by someone else: the first stays on record.
    expect(await cancelRun(owner.factoryId, id!, { email: 'admin@example.com' })).toMatchObject({ status: 'cancelled', cancel: { by: EDITOR.email } });
    await finishRun('w', done!, { status: 'succeeded', output: 'done' });
    await expect(cancelRun(owner.factoryId, done!, EDITOR)).rejects.toMatchObject({ code: 'conflict', message: `Run ${done} is succeeded: only a run that has not ended can be cancelled` });
    // Another factory's run is not found, and untouched.
    const other = await runOwner(database, `cancel-other-${kind}`);
    const [foreign] = await queueRuns(database, other, 1);
    await expect(cancelRun(owner.factoryId, foreign!, EDITOR)).rejects.toMatchObject({ code: 'not_found' });
    expect(await run(foreign!)).toMatchObject({ status: 'queued', cancelRequestedAt: null });
  });

  it('never claims a queued run whose cancel was requested elsewhere; the sweep ends it cancelled', async () => {
    const [id] = await queueRuns(database, owner, 1);
    await requestCancel(id!);
    expect(await claimRun('w', 60_000)).toBeNull();
    expect(await failAbandonedRuns()).toBe(1);
    expect(await run(id!)).toMatchObject({ status: 'cancelled', error: 'The run was cancelled before it started.', finishedAt: expect.any(Date) });
  });

  it('stops a run held by another instance within the bound, keeps its output, and counts it', async () => {
    const [first, second] = await queueRuns(database, owner, 2);
    const executor = { kind: 'command' as const, command: 'echo started; sleep 60', timeoutMs: budget(120_000), cancelGraceMs: budget(30_000) };
    // Two instances: each pool has a worker ID of its own and executes one run.
    const a = startWorkers(executor, 1);
    const b = startWorkers(executor, 1);
    try {
      await expect.poll(async () => (await database.prisma.run.findMany({ where: { status: 'running' }, select: { lockedBy: true } })).map((r) => r.lockedBy)).toHaveLength(2);
      const holders = await database.prisma.run.findMany({ where: { status: 'running' }, select: { lockedBy: true }, distinct: ['lockedBy'] });
      expect(holders).toHaveLength(2);
      const before = await cancelledCount('command');

      const requested = Date.now();
      await requestCancel(first!);
      // The bound in time is the poll's (a generous one, scaled by the speed factor); the figure is printed.
      await expect.poll(async () => (await run(first!)).status, { timeout: CANCEL_POLL_MS + budget(10_000) }).toBe('cancelled');
      const tookMs = Date.now() - requested;
      console.log(`a run cancelled from elsewhere ended ${tookMs} ms after the request (the pools check every ${CANCEL_POLL_MS} ms)`);
      expect(await run(first!)).toMatchObject({
        output: 'started\n',
        error: 'The run was cancelled while the command ran: its process group received SIGTERM and ended within the grace period',
        lockedBy: null,
        finishedAt: expect.any(Date),
      });
      expect(await cancelledCount('command')).toBe(before + 1);
      // The other instance's run goes on.
      expect(await run(second!)).toMatchObject({ status: 'running', cancelRequestedAt: null });

      // The member's cancel of a running run: recorded at once, the run stopped by its worker.
      const view = await cancelRun(owner.factoryId, second!, EDITOR);
      expect(view).toMatchObject({ status: 'running', cancel: { by: EDITOR.email, requestedAt: expect.any(Date) } });
      await expect.poll(async () => (await run(second!)).status, { timeout: CANCEL_POLL_MS + budget(5_000) }).toBe('cancelled');
      expect(await getRun(owner.factoryId, second!)).toMatchObject({ status: 'cancelled', output: 'started\n', cancel: { delivery: null, by: EDITOR.email } });
    } finally {
      await Promise.all([a.stop(Date.now()), b.stop(Date.now())]);
    }
  });

  it("counts a run control run cancelled by its worker, even when the worker's shutdown ends the cancel's grace, and marks its group", async () => {
    const counted = async () => (await metrics().runControlOutcomes.get()).values.find((value) => value.labels.outcome === 'cancelled')?.value ?? 0;
    const [id] = await queueRuns(database, owner, 1);
    // A run of a group under run control, in progress.
    await database.prisma.run.update({ where: { id }, data: { controlKey: '[1]' } });
    await database.prisma.runGroup.create({ data: { automationId: owner.automationId, key: '[1]', keyText: '1', dirty: false } });
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-cancel-'));
    const marker = path.join(folder, 'term');
    // The program outlives SIGTERM (its loop goes on), so the cancel's grace (a product setting, a minute) is still running at shutdown.
    const executor = { kind: 'command' as const, command: `trap 'touch ${marker}' TERM; while :; do sleep 0.1; done`, timeoutMs: 600_000, cancelGraceMs: 60_000 };
    const pool = startWorkers(executor, 1);
    try {
      await expect.poll(async () => (await run(id!)).status, { timeout: budget(10_000) }).toBe('running');
      const before = await counted();
      // Run control's cancel-running, as the scheduler writes it; the pool sends SIGTERM within its poll.
      await requestCancel(id!);
      await expect.poll(() => fs.existsSync(marker), { timeout: CANCEL_POLL_MS + budget(10_000) }).toBe(true);
      // The worker shuts down with no grace left: the program is killed at once, not after the cancel's
      // minute of grace, and the run ends as what was asked of it.
      await pool.stop(Date.now());
      expect(await run(id!)).toMatchObject({ status: 'cancelled', error: 'The run was cancelled while the command ran: its process group received SIGTERM, and was killed (SIGKILL) when the server shut down during its grace period' });
      expect(await counted()).toBe(before + 1);
      expect(await database.prisma.runGroup.findFirstOrThrow({ where: { automationId: owner.automationId, key: '[1]' } })).toMatchObject({ dirty: true });
    } finally {
      await pool.stop(Date.now());
      await database.prisma.runGroup.deleteMany();
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('ends a running run whose worker vanished cancelled, not failed, when its cancel was requested', async () => {
    const [cancelled, abandoned] = await queueRuns(database, owner, 2);
    await claimRun('gone', 1);
    await claimRun('gone', 1);
    await requestCancel(cancelled!);
    // The claims' 1 ms leases must run out.
    await expect.poll(async () => database.prisma.run.count({ where: { lockedUntil: { lt: new Date() } } })).toBe(2);
    expect(await failAbandonedRuns()).toBe(2);
    expect(await run(cancelled!)).toMatchObject({ status: 'cancelled', error: expect.stringMatching(/^The run was cancelled, and the worker executing it stopped/) });
    expect(await run(abandoned!)).toMatchObject({ status: 'failed', error: expect.stringMatching(/stopped before it finished/) });
  });

  it('ends an HTTP attempt due for a retry cancelled instead, when its cancel came meanwhile', async () => {
    const [id] = await queueRuns(database, owner, 1);
    await claimRun('w', 60_000);
    await requestCancel(id!);
    await finishRun('w', id!, { status: 'failed', output: 'busy', error: 'The executor URL answered HTTP 503 (attempt 1 of 3; retrying in 10 s)', retryAfterMs: 10_000 });
    expect(await run(id!)).toMatchObject({
      status: 'cancelled',
      output: 'busy',
      lockedUntil: null,
      finishedAt: expect.any(Date),
      error: 'The executor URL answered HTTP 503 (attempt 1 of 3; retrying in 10 s). The run was cancelled before its next attempt',
    });
  });

  it('aborts the HTTP request of a cancelled run and tells the receiver with a signed run.cancelled call', async () => {
    type Received = { headers: http.IncomingHttpHeaders; body: string; aborted: boolean };
    const received: Received[] = [];
    let cancelAnswer = 200;
    const server = http.createServer((request, response) => {
      const entry: Received = { headers: request.headers, body: '', aborted: false };
      received.push(entry);
      request.on('data', (chunk: Buffer) => (entry.body += chunk.toString('utf8')));
      request.on('end', () => {
        // The run request is held open: the agent is "working".
        if ((JSON.parse(entry.body) as { type: string }).type === 'run.cancelled') {
          response.statusCode = cancelAnswer;
          response.end();
        }
      });
      response.on('close', () => (entry.aborted = !response.writableEnded));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/runs`;
    const pool = startWorkers({ kind: 'http', url, secret: SECRET, attempts: 3, timeoutMs: budget(120_000) }, 1);
    try {
      const before = await cancelledCount('http');
      for (const answer of [200, 500]) {
        cancelAnswer = answer;
        received.length = 0;
        const [id] = await queueRuns(database, owner, 1, '{"issue": 7}');
        await expect.poll(() => received.length).toBe(1);
        await cancelRun(owner.factoryId, id!, EDITOR);
        await expect.poll(async () => (await run(id!)).status, { timeout: CANCEL_POLL_MS + budget(5_000) }).toBe('cancelled');
        const [started, cancelled] = received;
        expect(started!.aborted).toBe(true);
        expect(cancelled!.headers['webhook-id']).toBe(`${id}_cancelled`);
        // The receiver's own check, with the standardwebhooks package: throws on a bad signature.
        expect(new Webhook(SECRET).verify(cancelled!.body, cancelled!.headers as Record<string, string>)).toEqual({
          type: 'run.cancelled',
          run: { id, attempt: 1, automation: { id: owner.automationId, name: 'Auto' } },
        });
        const told = answer === 200 ? 'the receiver was told (run.cancelled, HTTP 200)' : 'the run.cancelled call to the receiver was answered HTTP 500';
        expect(await run(id!)).toMatchObject({ status: 'cancelled', attempts: 1, error: `The run was cancelled while waiting for the executor URL: the request was aborted, and ${told}` });
      }
      expect(await cancelledCount('http')).toBe(before + 2);
    } finally {
      await pool.stop(Date.now());
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
