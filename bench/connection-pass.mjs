// A recovery pass over a large delivery list, with the ingress under load:
// `node bench/connection-pass.mjs` (issue 45's goal: "a recovery pass over
// 10,000 provider deliveries with 500 missing, covering its time, its API
// calls, and the ingress's p99 at 200/s during the pass").
//
// The production build through server.ts (scripts/serve.mjs, as `npm start`)
// on a scratch PostgreSQL database (BENCH_ONLY=pglite: on the embedded
// database instead; `postgres,pglite` for both, twice as long), with
// TRIPLINE_CONNECTION_ALLOW=http,private so that it may call the fake GitHub
// (tests/support/fakes/github.ts), which runs in this process. A factory, an
// API token, a GitHub-signature webhook with an automation on it, connected
// to the fake through the API (PUT .../connection) as a person would, and 19
// bearer-token webhooks for the load. The fake's log is then filled as
// lib/domain/connections/large-pass.int.test.ts fills it: with the
// connection's ping, 10,000 deliveries, of which 9,499 answered 202 and 500
// "failed to connect" (an outage). The fake signs a redelivery with the
// hook's secret, so each one the pass asks for is verified by the ingress
// like a live delivery.
//
// One load process (bench/load.mjs, open loop, 200 deliveries/s over the 19
// other webhooks, windows of 5 s) runs through:
//   1. warm-up, 20 s, not counted;
//   2. baseline, BENCH_SECONDS (default 30): no pass;
//   3. recovery: "Check now" (POST .../connection/check), then until all 500
//      are in the log. The server's loop runs the passes: each paced at 80
//      redeliveries a minute after a burst of 20 (defaultRedeliveryRate:
//      GitHub's limit, as the bench sets TRIPLINE_DELIVERY_RATE_LIMIT high
//      enough for the load), cut at 120 s, the next 60-90 s later (due after
//      60 s, found by the loop's 30 s poll): about 3 passes, 7-8 minutes.
// Prints per pass its time, its listing (first page asked to last), the
// calls the fake received by kind; the time from "Check now" until the last
// of the 500 was answered 202; the ingress p50/p99 of the baseline, of the
// whole recovery, and of the 5 s windows that overlap a pass. Then checks
// that each of the 500 is in the log exactly once (through the API's
// delivery list), that the fake was asked for each once, that the fake saw
// no request off GitHub's description, and that the load got only 202s;
// if any of that fails, it prints what failed, no figures, and exits 1.
// Settings: BENCH_ONLY (postgres), BENCH_SECONDS (30), BENCH_PORT (3799),
// BENCH_MAX_MINUTES (15: the recovery's limit).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { randomBytes, randomUUID } from 'node:crypto';
import { register } from 'tsx/esm/api';
import { cli, distDir, ensureBuild, quantile, scratchDatabase, serverNodeFlags } from './harness.mjs';

// The fake is TypeScript: loaded through tsx's hooks, removed once it is in.
const unregister = register();
const { startGitHubFake } = await import('../tests/support/fakes/github.ts');
unregister();

const RATE = 200;
const LOAD_WEBHOOKS = 19;
const DELIVERIES = 10_000; // in the fake's log, the ping included
const WINDOW_S = 5;
const WARMUP_WINDOWS = 4;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const BASELINE_WINDOWS = Math.max(1, Math.round(SECONDS / WINDOW_S));
const MAX_MS = Number(process.env.BENCH_MAX_MINUTES ?? 15) * 60_000;
const port = Number(process.env.BENCH_PORT ?? 3799);
const origin = `http://localhost:${port}`;
const kinds = (process.env.BENCH_ONLY ?? 'postgres').split(',').map((kind) => kind.trim());
const log = (line) => console.error(`[connection-pass] ${line}`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;


/** Windows' latency and statuses together: p50, p99, max, requests, non-202 answers and errors. */
function summarize(windows) {
  const histograms = windows.map((w) => w.histogram);
  const requests = windows.reduce((sum, w) => sum + w.requests, 0);
  const accepted = windows.reduce((sum, w) => sum + (w.statusCodes['202']?.count ?? 0), 0);
  const failures = windows.reduce((sum, w) => sum + w.errors + w.timeouts, 0);
  return { requests, accepted, failures, p50: quantile(histograms, 0.5), p99: quantile(histograms, 0.99), max: Math.max(0, ...windows.map((w) => w.latency.max ?? 0)) };
}

/** The load at RATE/s in windows of WINDOW_S seconds until stop(); `windows` fills as each one ends. */
function startLoad(targets) {
  const optionsFile = path.join(os.tmpdir(), `tripline-bench-connection-pass-${process.pid}.json`);
  fs.writeFileSync(optionsFile, JSON.stringify({ url: origin, targets, connections: 16, rate: RATE, window: WINDOW_S }));
  const child = spawn(process.execPath, ['bench/load.mjs', `@${optionsFile}`], { stdio: ['pipe', 'pipe', 'inherit'] });
  const windows = [];
  const arrived = [];
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    windows.push(JSON.parse(line));
    arrived.push(Date.now());
  });
  const ended = new Promise((resolve) => child.once('exit', resolve));
  return {
    windows,
    arrived,
    /** Resolves once `count` windows have ended. */
    async until(count) {
      while (windows.length < count) {
        if (child.exitCode !== null) throw new Error('the load generator exited');
        await sleep(50);
      }
    },
    async stop() {
      child.stdin.end();
      await ended;
      fs.rmSync(optionsFile, { force: true });
    },
  };
}

async function waitReady(server) {
  for (let i = 0; i < 480; i++) {
    if (server.exitCode !== null) throw new Error('the server exited');
    if ((await fetch(`${origin}/readyz`).catch(() => null))?.ok) return;
    await sleep(250);
  }
  throw new Error('the server did not become ready');
}

async function bench(kind) {
  const scratch = await scratchDatabase(`connpass_${kind}`, port);
  const env = { ...scratch.env };
  if (kind === 'pglite') env.DATABASE_URL = '';
  let server;
  let fake;
  let load;
  try {
    log(`${kind}: setting up`);
    cli(env, ['setup', '--email', 'bench@example.test', '--password-stdin', '--factory', 'bench'], 'bench password 123');
    const token = cli(env, ['token', 'create', '--email', 'bench@example.test']);
    const auth = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    server = spawn(process.execPath, [...serverNodeFlags(), 'scripts/serve.mjs'], {
      env: {
        ...process.env,
        ...env,
        NEXT_DIST_DIR: distDir,
        PORT: String(port),
        TRIPLINE_CONNECTION_ALLOW: 'http,private',
        // The load sends about 630 deliveries a minute to each webhook; the pace of redeliveries is then GitHub's 80 a minute.
        TRIPLINE_DELIVERY_RATE_LIMIT: '1000000',
        TRIPLINE_LOG_FORMAT: 'json',
        TRIPLINE_LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    // The server's own line for each pass (lib/domain/connections/recover.ts): its outcome, counts and time.
    const passLines = [];
    readline.createInterface({ input: server.stdout }).on('line', (line) => {
      if (!line.includes('"recovery pass"')) return;
      try {
        const entry = JSON.parse(line);
        passLines.push({ ...entry, end: Date.parse(entry.time), start: Date.parse(entry.time) - entry.ms });
      } catch {
        // not one of ours
      }
    });
    await waitReady(server);
    const api = async (route, body, method = 'POST') => {
      const response = await fetch(`${origin}/api/v1/factories/bench${route}`, { method, headers: auth, body: body === undefined ? undefined : JSON.stringify(body) });
      const json = response.status === 204 ? null : await response.json();
      if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${JSON.stringify(json)}`);
      return json;
    };

    // The fake GitHub, with a time on each API call and on each attempt it records.
    fake = await startGitHubFake();
    const githubToken = `ghp_${randomBytes(18).toString('base64url')}`;
    fake.tokens.set(githubToken, 'admin');
    const calls = [];
    const pushCall = fake.requests.push.bind(fake.requests);
    fake.requests.push = (...items) => {
      for (const call of items) calls.push({ at: Date.now(), call });
      return pushCall(...items);
    };
    const attempts = [];
    const pushAttempt = fake.deliveries.push.bind(fake.deliveries);
    fake.deliveries.push = (...items) => {
      for (const d of items) attempts.push({ at: Date.now(), guid: d.guid, code: d.status_code, redelivery: d.redelivery, event: d.event });
      return pushAttempt(...items);
    };

    await api('/secrets/GITHUB_TOKEN', { value: githubToken }, 'PUT');
    const created = await api('/webhooks', { name: 'github', authMode: 'signature', signatureScheme: 'github' });
    const uid = created.webhook.uid;
    await api('/automations', { name: 'on-github', prompt: 'Handle it.', triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [uid] } }] });
    const targets = [];
    for (let i = 0; i < LOAD_WEBHOOKS; i++) {
      const other = await api('/webhooks', { name: `load-${i}` });
      targets.push({ path: new URL(other.ingressUrl).pathname, authorization: `Bearer ${other.secret}` });
    }
    const { connection } = await api(`/webhooks/${uid}/connection`, { provider: 'github_repository', apiBaseUrl: fake.url, credentialSecretName: 'GITHUB_TOKEN', target: 'octo/bench', eventTypes: ['issues'] }, 'PUT');
    const hook = fake.hooks.get(Number(connection.providerHookId));
    const connectedAt = Date.now();
    // The connection's first pass (a new connection wakes the loop) and GitHub's ping, verified: 202.
    const view = async () => (await api(`/webhooks/${uid}/connection`, undefined, 'GET')).connection;
    for (let i = 0; ; i++) {
      const now = await view();
      const ping = attempts.find((a) => a.event === 'ping');
      if (now.lastCheckAt && !now.checking && ping) {
        if (ping.code !== 202) throw new Error(`GitHub's ping was answered ${ping.code}, not 202`);
        break;
      }
      if (i > 240) throw new Error('the connection\'s first pass did not end within a minute');
      await sleep(250);
    }

    // GitHub's log as an outage leaves it, dated since the connection: 10,000 with the ping, 500 of them failed.
    // Their IDs sort below the ping's and the redeliveries' (500,000 up), so the list stays newest first as GitHub's.
    const span = Math.max(1000, Date.now() - connectedAt);
    const failed = [];
    for (let i = 0; i < DELIVERIES - 1; i++) {
      const missing = i % 20 === 7;
      const number = i + 1;
      const payload = {
        action: 'opened',
        issue: { number, title: `Issue ${number}`, state: 'open', body: 'Steps to reproduce: '.padEnd(300, 'x'), user: { login: 'octocat', id: 1 }, labels: [] },
        repository: { id: 1, name: 'bench', full_name: 'octo/bench', private: false },
        sender: { login: 'octocat', id: 1 },
      };
      const delivery = {
        id: 100_000 + i, hookId: hook.id, guid: randomUUID(), delivered_at: new Date(connectedAt + Math.floor((i * span) / DELIVERIES)).toISOString().replace(/\.\d{3}Z$/, 'Z'), redelivery: false,
        duration: 0.01, status: missing ? 'failed to connect' : 'OK', status_code: missing ? 0 : 202, event: 'issues', action: 'opened',
        request: { headers: { 'x-github-event': 'issues' }, payload }, response: { headers: {}, payload: null },
      };
      pushAttempt(delivery);
      if (missing) failed.push(delivery);
    }
    const listedInFake = fake.deliveries.filter((d) => d.hookId === hook.id).length;
    log(`${kind}: the fake's log holds ${listedInFake} deliveries for the hook, ${failed.length} failed`);

    // Warm-up and baseline, in one load process that goes on through the recovery.
    load = startLoad(targets);
    log(`${kind}: warm-up ${WARMUP_WINDOWS * WINDOW_S} s, then the baseline, ${BASELINE_WINDOWS * WINDOW_S} s at ${RATE}/s`);
    await load.until(1);
    const loadStart = load.arrived[0] - WINDOW_S * 1000; // the first window's start, within a request's latency
    const windowStart = (index) => loadStart + index * WINDOW_S * 1000;
    const baselineFrom = WARMUP_WINDOWS;
    await load.until(baselineFrom + BASELINE_WINDOWS);
    const loadAvgBaseline = os.loadavg();

    // Recovery: Check now, then until each of the 500 was answered 202 by the ingress.
    const recoveryFrom = load.windows.length;
    const checkAt = Date.now();
    const callsBefore = calls.length;
    await api(`/webhooks/${uid}/connection/check`);
    log(`${kind}: Check now at ${new Date(checkAt).toISOString()}; the load goes on until all ${failed.length} are in the log`);
    const failedGuids = new Set(failed.map((d) => d.guid));
    const firstAccepted = new Map();
    const snapshots = [];
    let seen = 0;
    let lastPoll = 0;
    while (firstAccepted.size < failedGuids.size) {
      for (; seen < attempts.length; seen++) {
        const a = attempts[seen];
        if (a.redelivery && failedGuids.has(a.guid) && a.code >= 200 && a.code < 300 && !firstAccepted.has(a.guid)) firstAccepted.set(a.guid, a.at);
      }
      if (Date.now() - lastPoll >= 5000) {
        lastPoll = Date.now();
        const now = await view();
        const last = snapshots.at(-1);
        if (!last || last.lastCheckAt !== now.lastCheckAt || last.checking !== now.checking) {
          snapshots.push({ at: lastPoll, ...now });
          log(`${kind}: +${seconds(lastPoll - checkAt)}: ${firstAccepted.size} of ${failedGuids.size} in; connection checking=${now.checking}, last pass missing ${now.lastMissing}, recovered ${now.lastRecovered}${now.lastError ? ` (${now.lastError})` : ''}`);
        }
      }
      if (Date.now() - checkAt > MAX_MS) throw new Error(`after ${seconds(MAX_MS)} only ${firstAccepted.size} of ${failedGuids.size} were answered 202`);
      await sleep(200);
    }
    const allInAt = Math.max(...firstAccepted.values());
    await load.stop();
    const loadWindows = load.windows;
    load = null;
    const loadAvgEnd = os.loadavg();
    log(`${kind}: all ${failedGuids.size} answered 202 ${seconds(allInAt - checkAt)} after Check now; waiting for the pass to end`);
    for (let i = 0; ; i++) {
      const now = await view();
      if (!now.checking && passLines.some((p) => p.end >= allInAt - 1000)) break;
      if (i > 600) throw new Error('the last pass did not end within 150 s of the last redelivery');
      await sleep(250);
    }
    await fake.settled();

    // The log, through the API: each of the 500 accepted exactly once.
    const entries = [];
    for (let cursor = null; ;) {
      const page = await api(`/webhooks/${uid}/deliveries?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, undefined, 'GET');
      entries.push(...page.deliveries);
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    const acceptedOf = new Map();
    for (const entry of entries) if (entry.status === 'accepted') acceptedOf.set(entry.deliveryId, (acceptedOf.get(entry.deliveryId) ?? 0) + 1);
    const statuses = entries.reduce((counts, e) => ({ ...counts, [e.status]: (counts[e.status] ?? 0) + 1 }), {});
    const recoveredOrigin = entries.filter((e) => failedGuids.has(e.deliveryId) && e.origin === 'provider_redelivery').length;

    // The calls the passes made, each assigned to the pass whose time holds it.
    const passes = passLines.filter((p) => p.start >= checkAt - 1000).sort((a, b) => a.start - b.start);
    const phaseCalls = calls.slice(callsBefore);
    const kindOf = (call) => (call.endsWith('/attempts') ? 'redeliveries' : /^GET .*\/deliveries$/.test(call) ? 'pages' : 'other');
    const perPass = passes.map((p) => {
      const own = phaseCalls.filter((c) => c.at >= p.start - 250 && c.at <= p.end + 250);
      const pages = own.filter((c) => kindOf(c.call) === 'pages');
      const redeliveries = own.filter((c) => kindOf(c.call) === 'redeliveries');
      return {
        outcome: p.outcome, ms: p.ms, listed: p.listed, missing: p.missing, redelivered: p.redelivered, requests: p.requests, reason: p.reason ?? null,
        startAfterCheck: p.start - checkAt,
        pages: pages.length, redeliveries: redeliveries.length, other: own.length - pages.length - redeliveries.length,
        listingMs: pages.length ? pages.at(-1).at - pages[0].at : null,
        toFirstRedeliveryMs: pages.length && redeliveries.length ? redeliveries[0].at - pages[0].at : null,
      };
    });
    const byKind = phaseCalls.reduce((counts, c) => ({ ...counts, [kindOf(c.call)]: (counts[kindOf(c.call)] ?? 0) + 1 }), {});
    const askedFor = phaseCalls.filter((c) => kindOf(c.call) === 'redeliveries').map((c) => Number(/\/deliveries\/(\d+)\/attempts$/.exec(c.call)?.[1]));
    const failedIds = new Set(failed.map((d) => d.id));
    const passesNeeded = passes.filter((p) => p.start <= allInAt).length;

    // The load: baseline, the whole recovery (Check now until all were in), and its windows that overlap a pass.
    const baseline = summarize(loadWindows.slice(baselineFrom, baselineFrom + BASELINE_WINDOWS));
    const recoveryWindows = loadWindows.slice(recoveryFrom).map((w, i) => ({ ...w, start: windowStart(recoveryFrom + i) }));
    const overlapsPass = (w) => passes.some((p) => p.start < w.start + WINDOW_S * 1000 && p.end > w.start);
    const recovery = summarize(recoveryWindows);
    const duringPasses = summarize(recoveryWindows.filter(overlapsPass));
    const betweenPasses = summarize(recoveryWindows.filter((w) => !overlapsPass(w)));
    const worstWindow = recoveryWindows.reduce((worst, w) => (!worst || (w.latency.p99 ?? 0) > (worst.latency.p99 ?? 0) ? w : worst), null);

    // A broken run prints what broke, not figures.
    const problems = [];
    const notOnce = [...failedGuids].filter((guid) => acceptedOf.get(guid) !== 1);
    if (notOnce.length) problems.push(`${notOnce.length} of the ${failedGuids.size} are not in the log exactly once (e.g. ${notOnce.slice(0, 3).map((g) => `${g}: ${acceptedOf.get(g) ?? 0}`).join(', ')})`);
    if (askedFor.length !== failedGuids.size || new Set(askedFor).size !== askedFor.length || askedFor.some((id) => !failedIds.has(id))) {
      problems.push(`the passes asked for ${askedFor.length} redeliveries of ${new Set(askedFor).size} deliveries, ${askedFor.filter((id) => !failedIds.has(id)).length} of them not among the 500`);
    }
    if (fake.problems.length) problems.push(`the fake saw requests or answers off GitHub's description: ${fake.problems.slice(0, 3).join('; ')}`);
    for (const [name, phase] of [['baseline', baseline], ['recovery', recovery]]) {
      if (phase.accepted !== phase.requests || phase.failures) problems.push(`the load's ${name}: ${phase.accepted} of ${phase.requests} answered 202, ${phase.failures} errors or timeouts`);
    }
    if (!passes.length) problems.push('no "recovery pass" line from the server after Check now');

    return {
      kind,
      problems,
      listedInFake,
      failed: failedGuids.size,
      untilAllInMs: allInAt - checkAt,
      passesNeeded,
      passes: perPass,
      byKind,
      askedFor: askedFor.length,
      log: { entries: entries.length, statuses, recoveredOrigin },
      baseline,
      recovery: { ...recovery, seconds: Math.round(recoveryWindows.length * WINDOW_S) },
      duringPasses: { ...duringPasses, windows: recoveryWindows.filter(overlapsPass).length },
      betweenPasses: { ...betweenPasses, windows: recoveryWindows.filter((w) => !overlapsPass(w)).length },
      worstWindow: worstWindow && { afterCheck: worstWindow.start - checkAt, p99: worstWindow.latency.p99, max: worstWindow.latency.max },
      loadAverage: { baseline: loadAvgBaseline, end: loadAvgEnd },
    };
  } finally {
    await load?.stop();
    await fake?.close();
    server?.kill('SIGTERM');
    if (server && server.exitCode === null) await new Promise((resolve) => server.once('exit', resolve));
    await scratch.drop();
  }
}

ensureBuild();
const started = new Date();
const results = [];
for (const kind of kinds) {
  if (kind !== 'postgres' && kind !== 'pglite') throw new Error(`BENCH_ONLY: postgres, pglite or both, not ${kind}`);
  const result = await bench(kind);
  log(`${kind}: ${JSON.stringify(result)}`);
  results.push(result);
}

const ms = (value) => (value === null || value === undefined ? '-' : `${Math.round(value)}`);
const latency = (p) => `p50 ${ms(p.p50)} ms, p99 ${ms(p.p99)} ms, max ${ms(p.max)} ms (${p.accepted}/${p.requests} answered 202)`;
const averages = (values) => values.map((v) => v.toFixed(1)).join(' ');
console.log(`\nA recovery pass over ${DELIVERIES.toLocaleString('en')} GitHub deliveries with 500 missing, with the ingress at ${RATE}/s`);
console.log(`${started.toISOString()}, nproc ${os.availableParallelism()}, ${os.cpus()[0]?.model}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`);
console.log(`load: ${RATE} deliveries/s over ${LOAD_WEBHOOKS} other webhooks (bench/load.mjs, open loop); baseline ${BASELINE_WINDOWS * WINDOW_S} s after a ${WARMUP_WINDOWS * WINDOW_S} s warm-up`);
for (const r of results) {
  console.log(`\n== ${r.kind === 'postgres' ? 'PostgreSQL' : 'PGlite (embedded)'} ==`);
  if (r.problems.length) {
    console.log(`BROKEN RUN, no figures:\n  - ${r.problems.join('\n  - ')}`);
    continue;
  }
  console.log(`the fake's log: ${r.listedInFake.toLocaleString('en')} deliveries for the hook, ${r.failed} failed`);
  console.log(`all ${r.failed} in the log ${seconds(r.untilAllInMs)} after Check now, in ${r.passesNeeded} passes`);
  console.log('pass | starts after Check now | time | listing (first page to last) | to first redelivery | pages | redeliveries | other calls | outcome');
  r.passes.forEach((p, i) => {
    console.log(`${i + 1} | ${seconds(p.startAfterCheck)} | ${seconds(p.ms)} | ${ms(p.listingMs)} ms | ${ms(p.toFirstRedeliveryMs)} ms | ${p.pages} | ${p.redeliveries} | ${p.other} | ${p.outcome}: listed ${p.listed}, missing ${p.missing}, asked ${p.redelivered}${p.reason ? ` (${p.reason})` : ''}`);
  });
  console.log(`API calls from Check now on: ${Object.entries(r.byKind).map(([k, n]) => `${n} ${k}`).join(', ')}; ${r.askedFor} redeliveries asked for, each of the ${r.failed} once`);
  console.log(`the log: each of the ${r.failed} accepted exactly once (${r.log.recoveredOrigin} marked provider_redelivery so far); ${r.log.entries} entries on the webhook: ${JSON.stringify(r.log.statuses)}`);
  console.log(`ingress, baseline (no pass):                ${latency(r.baseline)}`);
  console.log(`ingress, Check now until all in (${r.recovery.seconds} s): ${latency(r.recovery)}`);
  console.log(`ingress, ${r.duringPasses.windows} windows of ${WINDOW_S} s overlapping a pass: ${latency(r.duringPasses)}`);
  console.log(`ingress, ${r.betweenPasses.windows} windows between passes:        ${latency(r.betweenPasses)}`);
  if (r.worstWindow) console.log(`worst window: p99 ${r.worstWindow.p99} ms (max ${r.worstWindow.max} ms), ${seconds(r.worstWindow.afterCheck)} after Check now`);
  console.log(`load average (1, 5, 15 min): ${averages(r.loadAverage.baseline)} after the baseline, ${averages(r.loadAverage.end)} at the end`);
}
if (results.some((r) => r.problems.length)) process.exitCode = 1;
