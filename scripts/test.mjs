// `npm test`: every test, in order of speed: types and lint, unit and
// integration tests (Vitest, on embedded PGlite and on PostgreSQL when
// TEST_DATABASE_URL is set; under CI=true it must be), then a production
// build and the end-to-end tests over real HTTP in Chromium (Playwright).
// Prints one closing line: "N passed, N failed".
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sourceStamp, writeStamp } from './build-stamp.mjs';
import { requireSupportedNode } from './node-version.mjs';
import { describeSpeed, measureSpeedFactor } from './speed.mjs';

requireSupportedNode();

const root = path.resolve(import.meta.dirname, '..');
process.chdir(root);
process.env.NEXT_TELEMETRY_DISABLED = '1';

const reports = path.join(root, 'test-results');
fs.mkdirSync(reports, { recursive: true });
const only = process.argv.slice(2);
const totals = { passed: 0, failed: 0, skipped: 0 };
let failedSteps = [];
// Each failed test, named again at the end: a long run's output is often read from its tail only.
const failedTests = [];

/** The machine's CPU time so far (all cores, busy and idle), from /proc/stat; null where there is none. */
function cpuTimes() {
  try {
    const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number);
    const idle = fields[3] + (fields[4] ?? 0);
    return { total: fields.reduce((sum, value) => sum + value, 0), idle };
  } catch {
    return null;
  }
}

/**
 * "ok in 12.3 s, cores 1.4 of 2 busy": a step's time, and how busy the
 * machine was meanwhile (whatever ran beside it included), which tells a
 * step that waits from one that computes.
 */
function took(name, ok, started, cpuBefore) {
  const cpu = cpuTimes();
  const cores = os.cpus().length;
  const busy = cpu && cpuBefore && cpu.total > cpuBefore.total ? (1 - (cpu.idle - cpuBefore.idle) / (cpu.total - cpuBefore.total)) * cores : null;
  const load = busy === null ? '' : `, cores ${busy.toFixed(1)} of ${cores} busy`;
  return `=== ${name}: ${ok ? 'ok' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(1)} s${load}`;
}

/** Whether `npm test -- <steps>` asked for a step; `e2e` selects every e2e-* step. */
const wanted = (name) => !only.length || only.includes(name) || only.includes(name.split('-')[0]);

function step(name, command, args, env = {}) {
  if (!wanted(name)) return true;
  console.log(`\n=== ${name}: ${[command, ...args].join(' ')}`);
  const started = Date.now();
  const cpu = cpuTimes();
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  console.log(took(name, result.status === 0, started, cpu));
  if (result.status !== 0) failedSteps.push(name);
  return result.status === 0;
}

/**
 * Starts a step that runs beside the next ones; its output goes to a file and
 * is printed when it is awaited. Resolves to its JSON report (undefined when
 * skipped or missing); `.child` is its process.
 */
function startBeside(name, command, args, env, logFile, report) {
  if (!wanted(name)) return Object.assign(Promise.resolve(undefined), { child: undefined });
  console.log(`\n=== ${name}: ${[command, ...args].join(' ')} (beside the next steps)`);
  fs.rmSync(report, { force: true });
  const started = Date.now();
  const cpu = cpuTimes();
  const out = fs.openSync(logFile, 'w');
  const child = spawn(command, args, { stdio: ['ignore', out, out], env: { ...process.env, ...env } });
  const done = new Promise((resolve) => {
    child.once('close', (status) => {
      console.log(`\n=== ${name} (ran beside):\n${fs.readFileSync(logFile, 'utf8').trimEnd()}`);
      console.log(took(name, status === 0, started, cpu));
      if (status !== 0) failedSteps.push(name);
      const result = readJson(report);
      if (status !== 0 && !result) totals.failed += 1;
      resolve(result);
    });
  });
  return Object.assign(done, { child });
}

/** Runs a step beside others, its output lines prefixed with its name; resolves when it ends. */
function stepBeside(name, command, args, env) {
  if (!wanted(name)) return Promise.resolve(true);
  console.log(`\n=== ${name}: ${[command, ...args].join(' ')} (side by side)`);
  const started = Date.now();
  const cpu = cpuTimes();
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream.on('data', (chunk) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop();
      for (const line of lines) console.log(`[${name}] ${line}`);
    });
    stream.on('end', () => rest && console.log(`[${name}] ${rest}`));
  }
  return new Promise((resolve) => {
    child.once('close', (status) => {
      console.log(took(name, status === 0, started, cpu));
      if (status !== 0) failedSteps.push(name);
      resolve(status === 0);
    });
  });
}

/** The tests of a Playwright JSON report that did not end as expected: "[project] file:line > title". */
function unexpectedTests(report) {
  const found = [];
  const visit = (suite, titles) => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        if (test.status === 'unexpected') found.push(`[${test.projectName}] ${spec.file}:${spec.line} > ${[...titles, spec.title].join(' > ')}`);
      }
    }
    for (const child of suite.suites ?? []) visit(child, child.title && child.title !== child.file ? [...titles, child.title] : titles);
  };
  for (const suite of report?.suites ?? []) visit(suite, []);
  return found;
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

// The speed factor (scripts/speed.mjs), measured once before any step runs:
// every test's time budget is its figure for machine C times this factor.
// TRIPLINE_TEST_SPEED set by hand overrides it.
if (!process.env.TRIPLINE_TEST_SPEED) {
  const measured = await measureSpeedFactor();
  process.env.TRIPLINE_TEST_SPEED = String(measured.factor);
  console.log(`=== ${describeSpeed(measured)}`);
} else {
  console.log(`=== speed factor ${process.env.TRIPLINE_TEST_SPEED} (TRIPLINE_TEST_SPEED, as given)`);
}

const node = process.execPath;
const bin = (name, script) => path.join(root, 'node_modules', name, script);

if (!process.env.TEST_DATABASE_URL && process.env.CI === 'true') {
  console.error('TEST_DATABASE_URL must be set under CI: the PostgreSQL tests may not be skipped.');
  process.exit(1);
}

// The two-commands start on each Node.js LTS line (scripts/node-lines.mjs): a
// fresh clone's npm install and build each, about 100 CPU-seconds. It starts
// first and runs beside every step at the lowest CPU priority, so it takes
// only the time the others leave idle (Vitest's last files, the e2e runs'
// waits) instead of stretching them; it is awaited at the end.
const nodeLinesReport = path.join(reports, 'node-lines.json');
const nodeLinesLog = path.join(reports, 'node-lines.log');
const nodeLines = startBeside('node-lines', node, ['scripts/node-lines.mjs'], { NODE_LINES_REPORT: nodeLinesReport, NODE_LINES_NICE: '19' }, nodeLinesLog, nodeLinesReport);

step('generate', node, ['scripts/prisma-generate.mjs']);
// Types and lint side by side: each is mostly one core's work.
await Promise.all([
  stepBeside('typecheck', node, [bin('typescript', 'bin/tsc'), '--noEmit', '-p', '.']),
  stepBeside('lint', node, [bin('eslint', 'bin/eslint.js'), '--max-warnings=0', '.']),
]);

const vitestReport = path.join(reports, 'vitest.json');
fs.rmSync(vitestReport, { force: true });
step('vitest', node, [bin('vitest', 'vitest.mjs'), 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestReport}`]);
const vitest = readJson(vitestReport);
if (failedSteps.includes('vitest') && !vitest?.numFailedTests) totals.failed += 1;
if (vitest) {
  for (const file of vitest.testResults ?? []) {
    for (const test of file.assertionResults ?? []) {
      if (test.status === 'failed') failedTests.push(`vitest ${path.relative(root, file.name)} > ${test.fullName}`);
    }
    // A file that failed before its tests ran (an import error, a failing hook).
    if (file.status === 'failed' && !(file.assertionResults ?? []).some((test) => test.status === 'failed')) {
      failedTests.push(`vitest ${path.relative(root, file.name)}: ${String(file.message ?? 'failed').split('\n', 1)[0]}`);
    }
  }
  totals.passed += vitest.numPassedTests;
  totals.failed += vitest.numFailedTests;
  totals.skipped += vitest.numPendingTests + vitest.numTodoTests;
}

const stamp = sourceStamp();
// A standalone build (Next's output for the npm package, beside the usual
// one): the package's end-to-end test then packs this build instead of
// building the same sources again (scripts/pack.mjs).
const built = step('build', node, [bin('next', 'dist/bin/next'), 'build'], { TRIPLINE_STANDALONE: '1' });

if (built) {
  // e2e/lifecycle starts `npm start`, which then serves this build as it is.
  writeStamp(stamp);
  // Four Playwright runs side by side, each with its own servers (e2e/global-setup.ts,
  // E2E_SERVERS): the browser journeys, the API specs on each database, and the lifecycle
  // specs (which start servers of their own). Each API and browser run takes its files one at
  // a time against its server; the lifecycle run takes two at a time, each on ports of its own
  // (playwright.config.ts). Much of their time is waiting (for servers to start, for runs, for
  // time windows, for a dead server's lease to expire), which the other runs fill. Then the
  // logs project reads every server's log. E2E_SPLIT=0: one run.
  const playwright = [bin('@playwright/test', 'cli.js'), 'test'];
  const e2eReports = [];
  const countReport = (name, file) => {
    const report = readJson(file);
    if (failedSteps.includes(name) && !report?.stats?.unexpected) totals.failed += 1;
    for (const title of unexpectedTests(report)) failedTests.push(`${name} ${title}`);
    if (report?.stats) {
      totals.passed += report.stats.expected + report.stats.flaky;
      totals.failed += report.stats.unexpected;
      totals.skipped += report.stats.skipped;
    }
  };
  if (process.env.E2E_SPLIT === '0') {
    const report = path.join(reports, 'playwright.json');
    fs.rmSync(report, { force: true });
    step('e2e', node, playwright, { PLAYWRIGHT_JSON_OUTPUT_NAME: report });
    countReport('e2e', report);
  } else {
    fs.rmSync(path.join(reports, 'e2e-secrets.txt'), { force: true });
    const parts = [
      { name: 'e2e-browser', key: 'browser', servers: 'browser', projects: ['browser'] },
      // The package project (the README's quick start and the npm package) evens the runs out.
      { name: 'e2e-api', key: 'api', servers: 'api-pglite', projects: ['api-pglite', 'package'] },
      ...(process.env.TEST_DATABASE_URL ? [{ name: 'e2e-api-postgres', key: 'api-postgres', servers: 'api-postgres', projects: ['api-postgres'] }] : []),
      // Lifecycle specs start servers of their own (each file on its own ports), none of the shared ones.
      { name: 'e2e-lifecycle', key: 'lifecycle', servers: 'none', projects: ['lifecycle'], workers: 2 },
    ];
    await Promise.all(
      parts.map((part) => {
        const report = path.join(reports, `playwright-${part.key}.json`);
        e2eReports.push([part.name, report]);
        fs.rmSync(report, { force: true });
        const args = [...playwright, ...part.projects.map((project) => `--project=${project}`), `--workers=${part.workers ?? 1}`, '--output', `test-results/playwright-${part.key}`];
        return stepBeside(part.name, node, args, { E2E_SERVERS: part.servers, PLAYWRIGHT_JSON_OUTPUT_NAME: report });
      }),
    );
    const logsReport = path.join(reports, 'playwright-logs.json');
    e2eReports.push(['e2e-logs', logsReport]);
    fs.rmSync(logsReport, { force: true });
    step('e2e-logs', node, [...playwright, '--project=logs', '--no-deps'], { E2E_SERVERS: 'none', PLAYWRIGHT_JSON_OUTPUT_NAME: logsReport });
    for (const [name, report] of e2eReports) countReport(name, report);
  }
}

// The other steps are done: the fresh-clone starts have the machine, and their time limit runs from now.
nodeLines.child?.kill('SIGUSR2');
const lines = await nodeLines;
if (lines) {
  for (const result of lines) totals[result.ok ? 'passed' : 'failed'] += 1;
}

if (failedSteps.length) console.log(`\nFailed steps: ${failedSteps.join(', ')}`);
if (failedTests.length) console.log(`\nFailed tests:\n${failedTests.map((title) => `  ${title}`).join('\n')}`);
if (process.env.CI === 'true' && totals.skipped > 0) {
  console.log(`\n${totals.skipped} tests were skipped, which CI does not allow.`);
  failedSteps.push('skipped tests');
}
console.log(`\n${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}`);
process.exit(failedSteps.length ? 1 : 0);
