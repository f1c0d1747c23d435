// The test suite's speed factor: how much slower this machine is, now, than
// the reference machine the suite's time budgets were set on (machine C of
// docs/benchmarks.md, a quiet 2-core AMD EPYC, where the factor is 1).
//
// `npm test` measures it once at its start and passes it to every step in
// TRIPLINE_TEST_SPEED; a test's timeout is then budget(ms): its figure for
// machine C times the factor (never less than the figure itself). A run
// outside `npm test` (one spec, one Vitest file) measures it on first use.
//
// The workload is two parts, timed together: plain JavaScript (objects,
// strings, JSON, a regular expression) on every core at once, and HTTP
// requests over loopback to a small server on a thread of its own: the work
// the servers, Playwright and Vitest do. The HTTP part matters: on a slow day
// the project's machines lose more on syscalls and the network stack than on
// JavaScript alone. Both parts use every core, so a CPU hog on one of two
// cores slows them as it slows the tests.
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * Wall-clock milliseconds of one round of the workload on machine C. Set on
 * 2026-11-28 from a machine whose trivial route (`npm run bench`) answered
 * 785-829 requests/s against machine C's 2,160-2,250: that machine's median
 * round, 1,290 ms (five runs: 1,242-1,383), times 0.365.
 */
export const REFERENCE_MS = 470;
/** The factor is bounded: a machine more than this much slower fails its budgets anyway. */
const MAX_FACTOR = 8;
const ROUNDS = 3;

const compute = `
  const { parentPort } = require('node:worker_threads');
  let checksum = 0;
  for (let round = 0; round < 150; round++) {
    const items = [];
    for (let i = 0; i < 2000; i++) items.push({ id: 'evt-' + i.toString(36), n: i * round, tags: ['a', 'b', String(i % 7)], nested: { ok: i % 3 === 0 } });
    const text = JSON.stringify(items);
    const back = JSON.parse(text);
    for (const item of back) if (/^evt-[0-9a-z]*7$/.test(item.id) && item.nested.ok) checksum += item.n % 97;
    checksum += text.length % 13;
  }
  parentPort.postMessage(checksum);
`;

const server = `
  const http = require('node:http');
  const { parentPort } = require('node:worker_threads');
  const server = http.createServer((request, response) => {
    let n = 0;
    for (let i = 0; i < 2000; i++) n += i % 7;
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ ok: true, n }));
  });
  server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
  parentPort.once('message', () => server.close(() => process.exit(0)));
`;

function computeOnEveryCore() {
  const cores = Math.max(1, os.availableParallelism());
  return Promise.all(
    Array.from(
      { length: cores },
      () =>
        new Promise((resolve, reject) => {
          const worker = new Worker(compute, { eval: true });
          worker.once('message', resolve);
          worker.once('error', reject);
        }),
    ),
  );
}

/** 3,000 keep-alive requests over 8 connections to a server on its own thread. */
async function requestsOverLoopback(total = 3000, connections = 8) {
  const worker = new Worker(server, { eval: true });
  const port = await new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  let sent = 0;
  const lane = async () => {
    while (sent < total) {
      sent += 1;
      await new Promise((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: '/', agent }, (response) => {
            response.resume();
            response.once('end', resolve);
          })
          .once('error', reject);
      });
    }
  };
  try {
    await Promise.all(Array.from({ length: connections }, lane));
  } finally {
    agent.destroy();
    worker.postMessage('stop');
    await new Promise((resolve) => worker.once('exit', resolve));
  }
}

async function oneRound() {
  const started = performance.now();
  await computeOnEveryCore();
  await requestsOverLoopback();
  return performance.now() - started;
}

/**
 * Measures the factor: the median of three rounds of the workload, against
 * machine C's time. Below 1 on a faster machine: budgets never
 * shrink below their figures, but the printed factor says how fast it was.
 */
export async function measureSpeedFactor() {
  const times = [];
  for (let round = 0; round < ROUNDS; round++) times.push(await oneRound());
  times.sort((a, b) => a - b);
  const ms = times[Math.floor(ROUNDS / 2)];
  return { factor: Math.min(MAX_FACTOR, Number((ms / REFERENCE_MS).toFixed(2))), ms: Math.round(ms) };
}

/** The factor budgets use: TRIPLINE_TEST_SPEED when set (npm test sets it), else 1 until measured. */
export function speedFactor() {
  const value = Number(process.env.TRIPLINE_TEST_SPEED);
  return Number.isFinite(value) && value > 0 ? Math.min(MAX_FACTOR, value) : 1;
}

/** A time budget for a test: `ms` as set on machine C, scaled by the speed factor (never below `ms`). */
export function budget(ms) {
  return Math.round(ms * Math.max(1, speedFactor()));
}

/**
 * Sets TRIPLINE_TEST_SPEED for this process and its children when it is not
 * set yet (a run outside npm test: the Playwright and Vitest configurations
 * call this, synchronously, in a child process), and returns the factor in force.
 */
export function ensureSpeedFactor() {
  if (!process.env.TRIPLINE_TEST_SPEED) {
    const measured = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--factor'], { encoding: 'utf8' });
    const factor = Number(measured.stdout.trim());
    if (measured.status !== 0 || !(factor > 0)) throw new Error(`Could not measure the speed factor: ${measured.stderr}`);
    process.env.TRIPLINE_TEST_SPEED = String(factor);
  }
  return speedFactor();
}

/** The line npm test prints at its start. */
export function describeSpeed({ factor, ms }) {
  const pace = factor <= 1 ? 'as fast as machine C or faster: budgets as set' : `${factor} times machine C's time: every budget is scaled by ${factor}`;
  return `speed factor ${factor} (a fixed workload on ${os.availableParallelism()} cores took ${ms} ms; machine C: ${REFERENCE_MS} ms): ${pace}`;
}

// `node scripts/speed.mjs`: prints the factor; `--factor`: the number alone.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const measured = await measureSpeedFactor();
  console.log(process.argv.includes('--factor') ? String(measured.factor) : describeSpeed(measured));
}
