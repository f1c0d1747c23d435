import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sign, verify } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { budget } from '../../scripts/speed.mjs';
import { bearer, expect, test } from '../fixtures/api';
import { createWebhook, deleteCreatedWebhooks, rawPost } from '../fixtures/ingress';
import { attachListenDiagnostics, listener, openStream, receiver } from '../fixtures/listen';
import { scrapeMetrics } from '../fixtures/metrics';

// The stream of a webhook's log over real HTTP (server-sent events), and
// `tripline listen` run as a real process against the server, forwarding to a
// receiver this test runs: on PGlite and on PostgreSQL (where a delivery
// accepted by the second instance reaches a stream on the first: e2e/api-postgres/listen-instances.spec.ts).

const base = '/api/v1/factories/acme';

test.afterEach(async ({ request, tokens }) => {
  await deleteCreatedWebhooks(request, tokens.admin);
});


/** Sends a GitHub delivery signed with @octokit/webhooks-methods; returns its body. */
async function sendGithub(baseURL: string, hookUrl: string, secret: string, payload: unknown) {
  const body = JSON.stringify(payload);
  const headers = { 'X-Hub-Signature-256': await sign(secret, body), 'X-GitHub-Event': 'issues', 'X-GitHub-Delivery': randomUUID(), 'Content-Type': 'application/json', 'User-Agent': 'GitHub-Hookshot/e2e' };
  const response = await rawPost(baseURL, hookUrl, headers, Buffer.from(body));
  expect(response.status, response.body).toBe(202);
  return body;
}

test('a stream hears a delivery, and a reconnect with Last-Event-ID or ?after= gets exactly the ones it missed', async ({ request, tokens, baseURL }) => {
  const secret = 'listen-stream-secret';
  const hook = await createWebhook(request, tokens.admin, { name: 'stream', authMode: 'signature', signatureScheme: 'github', providerSecret: secret });
  const streamUrl = `${baseURL}${base}/webhooks/${hook.uid}/deliveries/stream`;
  const first = await openStream(streamUrl, tokens.admin);
  expect(first.response.status).toBe(200);
  expect(first.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  // The stream's position (after the newest entry) is fixed before its headers are sent.
  const body = await sendGithub(baseURL!, hook.url, secret, { action: 'opened', issue: { title: 'Ünïcode ✓' } });
  const [event] = await first.take(1);
  const entry = JSON.parse(event!.data);
  expect(event!.id).toBe(entry.id);
  expect(entry).toMatchObject({ status: 'accepted', eventType: 'issues.opened', body, bodyEncoding: 'utf8', signatureHeaders: 'original' });
  expect(await verify(secret, entry.body, entry.headers['x-hub-signature-256'])).toBe(true);
  await first.close();

  // Three more while nobody listens: a reconnect after the first gets those three, in order, once.
  const missed = [];
  for (let i = 0; i < 3; i++) missed.push(await sendGithub(baseURL!, hook.url, secret, { action: 'edited', n: i }));
  const again = await openStream(streamUrl, tokens.admin, { 'Last-Event-ID': entry.id });
  const replayed = await again.take(3);
  expect(replayed.map((e) => JSON.parse(e.data).body)).toEqual(missed);
  // Nothing is sent twice: the next delivery the stream carries is one sent after the three (it sends in the log's order).
  const next = await sendGithub(baseURL!, hook.url, secret, { action: 'closed' });
  expect((await again.take(1)).map((e) => JSON.parse(e.data).body)).toEqual([next]);
  expect(again.pending()).toBe(0);
  await again.close();
  const afterSecond = await openStream(`${streamUrl}?after=${replayed[1]!.id}`, tokens.admin);
  expect((await afterSecond.take(1)).map((e) => e.id)).toEqual([replayed[2]!.id]);
  await afterSecond.close();

  // A viewer's stream carries the body, with the signature redacted; filters and a bad cursor answer clearly.
  const viewer = await openStream(`${streamUrl}?after=${entry.id}&status=accepted&event=issues.*`, tokens.viewer);
  const [seen] = await viewer.take(1);
  expect(JSON.parse(seen!.data)).toMatchObject({ body: missed[0], signatureHeaders: 'redacted', headers: { 'x-hub-signature-256': '[redacted]' } });
  await viewer.close();
  const gone = await request.get(`${base}/webhooks/${hook.uid}/deliveries/stream?after=dl_nothing`, { headers: bearer(tokens.admin) });
  expect(gone.status()).toBe(422);
  expect((await gone.json()).error.message).toMatch(/not in this webhook's log/);
  const unknown = await request.get(`${base}/webhooks/wh_doesnotexist/deliveries/stream`, { headers: bearer(tokens.admin) });
  expect(unknown.status()).toBe(404);
  const noToken = await request.get(`${base}/webhooks/${hook.uid}/deliveries/stream`);
  expect(noToken.status()).toBe(401);
});

test('a token may hold five open streams; the sixth gets 429 until one closes', async ({ request, tokens, baseURL }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'limit' });
  const streamUrl = `${baseURL}${base}/webhooks/${hook.uid}/deliveries/stream`;
  const open = [];
  for (let i = 0; i < 5; i++) {
    const stream = await openStream(streamUrl, tokens.editor);
    expect(stream.response.status).toBe(200);
    open.push(stream);
  }
  const { response: refused } = await openStream(streamUrl, tokens.editor);
  expect(refused.status).toBe(429);
  expect((await refused.json()).error.message).toMatch(/already has 5 open streams/);
  expect(refused.headers.get('retry-after')).toBe('5');
  // Another token is not affected; closing one stream frees its slot.
  const other = await openStream(streamUrl, tokens.viewer);
  expect(other.response.status).toBe(200);
  await other.close();
  await open.pop()!.close();
  await expect
    .poll(
      async () => {
        const { response, close } = await openStream(streamUrl, tokens.editor);
        await close();
        return response.status;
      },
      { timeout: budget(15_000) },
    )
    .toBe(200);
  for (const stream of open) await stream.close();
});

test('a client that stops reading: the server stops reading the log for it and holds a bounded amount; once it reads again it gets every entry, in order', async ({ request, tokens, baseURL }) => {
  test.setTimeout(budget(90_000));
  const hook = await createWebhook(request, tokens.admin, { name: 'unread' });
  const streamUrl = new URL(`${baseURL}${base}/webhooks/${hook.uid}/deliveries/stream`);
  const SENT = 'tripline_log_stream_sent_bytes_total';
  const OPEN = 'tripline_log_streams_open';
  const RSS = 'tripline_process_resident_memory_bytes';
  const before = await scrapeMetrics(request, baseURL);
  // A client that reads the headers, then nothing: no data listener, so node:http stops reading the socket at once.
  const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
    http.get(streamUrl, { headers: bearer(tokens.admin) }, resolve).on('error', reject);
  });
  expect(response.statusCode).toBe(200);
  response.pause();
  expect((await scrapeMetrics(request, baseURL)).get(OPEN)).toBe((before.get(OPEN) ?? 0) + 1);

  // 55 deliveries of 250 KB (the per-minute rate limit is 60): 13.75 MB for a stream that is not read.
  const COUNT = 55;
  const pad = 'x'.repeat(250_000);
  for (let n = 0; n < COUNT; n++) {
    const sent = await rawPost(baseURL!, hook.url, { Authorization: `Bearer ${hook.secret}`, 'Content-Type': 'application/json' }, Buffer.from(JSON.stringify({ n, pad })));
    expect(sent.status, sent.body).toBe(202);
  }
  // The stream hands over what the connection takes (the kernel's buffers, at most 4 MB here, and an entry or two
  // in Node's), then waits: what it has sent stops growing, far below what was accepted.
  let sent = -1;
  await expect
    .poll(
      async () => {
        const previous = sent;
        // About time passing: "stopped" means no growth over this interval (longer on a slower machine, whose server sends slower).
        await new Promise((resolve) => setTimeout(resolve, budget(1_500)));
        sent = (await scrapeMetrics(request, baseURL)).get(SENT)! - (before.get(SENT) ?? 0);
        return sent > 0 && sent === previous;
      },
      { timeout: budget(30_000), intervals: [0] },
    )
    .toBe(true);
  const held = await scrapeMetrics(request, baseURL);
  test.info().annotations.push({
    type: 'figures',
    description: `sent ${(sent / 1e6).toFixed(1)} MB of ${((COUNT * 250_000) / 1e6).toFixed(2)} MB accepted; resident memory ${(before.get(RSS)! / 1e6).toFixed(0)} MB before, ${(held.get(RSS)! / 1e6).toFixed(0)} MB while held`,
  });
  expect(sent).toBeLessThan(8 * 1024 * 1024);

  // It reads again: every entry arrives, in order, once, with its exact body.
  const received: number[] = [];
  let buffer = '';
  response.setEncoding('utf8');
  response.on('data', (chunk: string) => {
    buffer += chunk;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block.split('\n').find((line) => line.startsWith('data: '));
      if (!block.includes('event: delivery') || !data) continue;
      const entry = JSON.parse(data.slice(6));
      const payload = JSON.parse(entry.body);
      expect(payload.pad).toBe(pad);
      received.push(payload.n);
    }
  });
  response.resume();
  await expect.poll(() => received.length, { timeout: budget(30_000) }).toBe(COUNT);
  expect(received).toEqual([...Array(COUNT).keys()]);
  expect((await scrapeMetrics(request, baseURL)).get(SENT)! - (before.get(SENT) ?? 0)).toBeGreaterThan(COUNT * 250_000);
  // A client that goes away gives its slot back.
  response.destroy();
  await expect.poll(async () => (await scrapeMetrics(request, baseURL)).get(OPEN), { timeout: budget(20_000) }).toBe(before.get(OPEN) ?? 0);
});

// ---------------------------------------------------------------------------
// tripline listen, as a process

test('tripline listen forwards each delivery once, in order, with its exact bytes and signature, across a SIGKILL', async ({ request, tokens, baseURL }) => {
  test.setTimeout(budget(120_000));
  const secret = 'listen-github-secret';
  const hook = await createWebhook(request, tokens.admin, { name: 'listen', authMode: 'signature', signatureScheme: 'github', providerSecret: secret });
  const local = await receiver();
  const stateFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-listen-')), 'state.json');
  const args = ['--url', baseURL!, '--token', tokens.admin, '--factory', 'acme', '--webhook', hook.uid, '--forward', local.url, '--since', '1h', '--state-file', stateFile];
  const sent: string[] = [];
  const outputs: Array<() => { stdout: string; stderr: string }> = [];
  try {
    let running = listener(args);
    outputs.push(running.output);
    for (let i = 0; i < 3; i++) sent.push(await sendGithub(baseURL!, hook.url, secret, { action: 'opened', n: i, text: 'exact  bytes\u00e9' }));
    await expect.poll(() => local.received.length, { timeout: budget(30_000) }).toBe(3);
    // The position is written after each forward: once it names the third entry (its id ends the
    // third delivery's line), kill without warning. Killed before that write, the listener would
    // forward the third again after its restart, as docs/local-development.md says.
    const third = () => running.output().stdout.match(/\bdl_\w+/g)?.[2];
    await expect.poll(third, { timeout: budget(20_000) }).toMatch(/^dl_/);
    await expect.poll(() => (fs.existsSync(stateFile) ? JSON.parse(fs.readFileSync(stateFile, 'utf8')).after : null), { timeout: budget(20_000) }).toBe(third());
    const stateAfterThree = JSON.parse(fs.readFileSync(stateFile, 'utf8'));
    running.child.kill('SIGKILL');
    await running.exited;

    // While it is down, three more arrive.
    for (let i = 3; i < 6; i++) sent.push(await sendGithub(baseURL!, hook.url, secret, { action: 'edited', n: i }));
    expect(local.received).toHaveLength(3);
    running = listener(args);
    outputs.push(running.output);
    await expect.poll(() => local.received.length, { timeout: budget(30_000) }).toBe(6);
    // None is forwarded twice: a seventh, sent now, is the next to arrive (the listener forwards in the log's order).
    sent.push(await sendGithub(baseURL!, hook.url, secret, { action: 'edited', n: 6 }));
    await expect.poll(() => local.received.length, { timeout: budget(30_000) }).toBeGreaterThanOrEqual(7);
    expect(local.received).toHaveLength(7);
    expect(running.output().stdout).toContain(`Resuming after ${stateAfterThree.after}`);
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);

    // Exactly the bytes sent, in order, each once; GitHub's own signature verifies at the receiver.
    expect(local.received.map((r) => r.body.toString('utf8'))).toEqual(sent);
    for (const r of local.received) {
      expect(await verify(secret, r.body.toString('utf8'), String(r.headers['x-hub-signature-256']))).toBe(true);
      expect(r.headers['x-github-event']).toBe('issues');
      expect(r.headers['user-agent']).toBe('GitHub-Hookshot/e2e');
    }
    expect(new Set(local.received.map((r) => r.headers['x-github-delivery'])).size).toBe(7);
    // One line per delivery: time, type, local status, duration.
    expect(running.output().stdout).toMatch(/\d\d:\d\d:\d\d {2}issues\.edited +204 +\d+ ms {2}dl_/);
  } catch (error) {
    // This test once saw 2 of 3 deliveries forwarded in 60 s: keep what explains the next such failure.
    await attachListenDiagnostics(outputs.map((output) => output()), test.info().project.name);
    throw error;
  } finally {
    await local.close();
  }
});

test('tripline listen --resign signs for the local receiver with Standard Webhooks', async ({ request, tokens, baseURL }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'resign' });
  const local = await receiver();
  const whsec = 'whsec_' + Buffer.from('a local receiver secret!').toString('base64');
  const stateFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-listen-')), 'state.json');
  // A viewer's token: the log's credentials never leave, and --resign gives the receiver something to verify.
  const running = listener(['--url', baseURL!, '--token', tokens.viewer, '--factory', 'acme', '--webhook', hook.uid, '--forward', local.url, '--since', '1h', '--state-file', stateFile, '--resign', whsec]);
  try {
    const response = await rawPost(baseURL!, hook.url, { Authorization: `Bearer ${hook.secret}`, 'Content-Type': 'application/json' }, Buffer.from('{"resigned":true}'));
    expect(response.status).toBe(202);
    await expect.poll(() => local.received.length, { timeout: budget(30_000) }).toBe(1);
    const [got] = local.received;
    expect(got!.headers.authorization).toBeUndefined();
    const verified = new Webhook(whsec).verify(got!.body.toString('utf8'), {
      'webhook-id': String(got!.headers['webhook-id']),
      'webhook-timestamp': String(got!.headers['webhook-timestamp']),
      'webhook-signature': String(got!.headers['webhook-signature']),
    });
    expect(verified).toEqual({ resigned: true });
  } finally {
    running.child.kill('SIGTERM');
    await running.exited;
    await local.close();
  }
});

test('tripline listen prints "Listening:" once connected: every delivery accepted after that line is forwarded, none from before it', async ({ request, tokens, baseURL }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'listening' });
  const local = await receiver();
  const stateFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-listen-')), 'state.json');
  const post = async (body: string) => {
    const response = await rawPost(baseURL!, hook.url, { Authorization: `Bearer ${hook.secret}`, 'Content-Type': 'application/json' }, Buffer.from(body));
    expect(response.status).toBe(202);
  };
  // Accepted before the listener starts: "from now" leaves it out.
  await post('{"before":true}');
  const running = listener(['--url', baseURL!, '--token', tokens.admin, '--factory', 'acme', '--webhook', hook.uid, '--forward', local.url, '--state-file', stateFile]);
  try {
    // A script waits for the documented line, then sends: nothing sleeps, and nothing is missed.
    await expect.poll(() => running.output().stdout, { timeout: budget(30_000) }).toMatch(new RegExp(`^Listening: forwarding ${hook.uid}'s deliveries from now to ${local.url.replace(/[.]/g, '\\.')}$`, 'm'));
    expect(running.output().stdout.match(/^Listening:/gm)).toHaveLength(1);
    await post('{"after":true}');
    await expect.poll(() => local.received.length, { timeout: budget(30_000) }).toBe(1);
    expect(local.received[0]!.body.toString('utf8')).toBe('{"after":true}');
  } finally {
    running.child.kill('SIGTERM');
    await running.exited;
    await local.close();
  }
});

test('tripline listen says clearly what is wrong: a bad token, an unknown webhook, a local URL that refuses', async ({ request, tokens, baseURL }) => {
  test.setTimeout(budget(90_000));
  const hook = await createWebhook(request, tokens.admin, { name: 'errors' });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-listen-'));
  const common = ['--url', baseURL!, '--factory', 'acme', '--forward', 'http://127.0.0.1:9/hook', '--state-file', path.join(dir, 'state.json')];

  const badToken = listener([...common, '--token', 'tl_not_a_token', '--webhook', hook.uid]);
  expect(await badToken.exited).toBe(1);
  expect(badToken.output().stderr).toMatch(/The server refused the token \(401\)/);

  const unknown = listener([...common, '--token', tokens.admin, '--webhook', 'wh_doesnotexist']);
  expect(await unknown.exited).toBe(1);
  expect(unknown.output().stderr).toMatch(/Not found \(404\): Webhook not found\. Check --factory acme and --webhook wh_doesnotexist/);

  // Nothing listens on the local URL yet: the listener says so and tries the same delivery again; once a receiver is there, it arrives.
  const port = await new Promise<number>((resolve) => {
    const probe = http.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
  const refusing = listener(['--url', baseURL!, '--factory', 'acme', '--token', tokens.admin, '--webhook', hook.uid, '--forward', `http://127.0.0.1:${port}/hook`, '--since', '1h', '--state-file', path.join(dir, 'refusing.json')]);
  let local: Awaited<ReturnType<typeof receiver>> | undefined;
  try {
    const response = await rawPost(baseURL!, hook.url, { Authorization: `Bearer ${hook.secret}`, 'Content-Type': 'application/json' }, Buffer.from('{"waits":true}'));
    expect(response.status).toBe(202);
    await expect.poll(() => refusing.output().stderr, { timeout: budget(20_000) }).toMatch(new RegExp(`The local URL http://127.0.0.1:${port}/hook refused the delivery dl_\\S+ \\(ECONNREFUSED\\); trying it again in`));
    local = await receiver(port);
    await expect.poll(() => local!.received.length, { timeout: budget(40_000) }).toBe(1);
    expect(local.received[0]!.body.toString()).toBe('{"waits":true}');
  } finally {
    refusing.child.kill('SIGTERM');
    await refusing.exited;
    await local?.close();
  }
});
