// Where `npm test` spends its CPU, by part and by end-to-end spec file:
//   node bench/test-cpu.mjs sample <file>                       (beside `npm test` or `bash .ci/run`, until stopped)
//   node bench/test-cpu.mjs report <file> <test-results folder of that run>
//
// `sample` reads every process once a second and writes one JSON line: the
// CPU-seconds so far of each part of the run (the three Playwright runs and
// the logs run, Vitest, the build, typecheck, lint, the fresh-clone lines) by
// kind of process (Chromium, the Tripline servers, the command line,
// Playwright's own processes), and of all PostgreSQL processes. A process
// belongs to its outermost part: the fresh-clone lines' own build is theirs.
// Each process's time is its own and its reaped children's (utime, stime,
// cutime, cstime), less what those children were counted for while they
// lived, whichever living ancestor's cutime they reach: a short-lived process
// is not lost between two samples, nor counted twice when it is reaped. Each
// sample also reads the machine's busy time (/proc/stat); no second is given
// more CPU than the machine ran, and the report says how much it left out.
// Checked against /proc/stat over two browser specs (2026-11-30): 131
// CPU-seconds attributed of the machine's 137 (the rest is processes outside
// the run). The version before read 146 for the same run: the browser's
// processes counted again, as Playwright's, when the test worker that reaped
// them exited (in a whole CI run, 114 CPU-seconds of "Playwright" in the last
// browser spec, why-not.spec.ts, ran 58 s). `time`, which counts only the children it waits for, says less still
// (Chromium's processes are not all reaped by their parents).
//
// `report` prints each part's CPU-seconds, then, for each e2e run, each spec
// file's: the CPU of the seconds in which it was the file running in its run
// (shared evenly where a run had two files running), from the Playwright JSON reports.
// CPU-seconds depend on the machine's speed: compare shares, or runs on one
// machine (docs/testing.md).
import fs from 'node:fs';
import path from 'node:path';

const TICKS_PER_SECOND = 100;

/** The part of `npm test` a command line starts, or null. */
function partOf(command) {
  if (command.includes('@playwright/test/cli.js') && command.includes(' test')) {
    for (const [project, part] of [
      ['browser', 'e2e-browser'],
      ['lifecycle', 'e2e-lifecycle'],
      ['logs', 'e2e-logs'],
      ['api-pglite', 'e2e-api'],
      ['api-postgres', 'e2e-api-postgres'],
    ]) {
      if (command.includes(`--project=${project}`)) return part;
    }
    return 'e2e';
  }
  const parts = [
    ['vitest.mjs', 'vitest'],
    ['next/dist/bin/next build', 'build'],
    ['scripts/node-lines.mjs', 'node-lines'],
    ['bin/tsc', 'typecheck'],
    ['bin/eslint', 'lint'],
  ];
  return parts.find(([marker]) => command.includes(marker))?.[1] ?? null;
}

/** What a process is, by its command line and name. */
function kindOf(command, name) {
  if (/chrom/i.test(name) || /chrom/i.test(command)) return 'chromium';
  if (command.includes('scripts/serve.mjs') || name.startsWith('next-server')) return 'server';
  // The command line: the tests' bundle of it (tests/support/bundle.ts), or the npm package's.
  if (/\/bundles\/\d+\/cli\.mjs|tripline\.mjs/.test(command)) return 'cli';
  if (command.includes('playwright')) return 'playwright';
  if (name.startsWith('postgres')) return 'postgres';
  return 'other';
}

const commands = new Map();
/** A process's command line, read once per process (pid and start time). */
function commandOf(pid, started) {
  const key = `${pid}:${started}`;
  let command = commands.get(key);
  if (command === undefined) {
    try {
      command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
    } catch {
      command = '';
    }
    commands.set(key, command);
  }
  return command;
}

/** Every process now: pid → { pid, name, ppid, ticks (its own and its reaped children's), started }. */
function readProcesses() {
  const processes = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const close = stat.lastIndexOf(')');
    const name = stat.slice(stat.indexOf('(') + 1, close);
    const fields = stat.slice(close + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    processes.set(Number(entry), { pid: Number(entry), name, ppid: Number(fields[1]), ticks, started: fields[19] });
  }
  return processes;
}

/** The machine's busy ticks since boot, all cores (/proc/stat: every field but idle and iowait). */
function machineBusy() {
  const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1, 9).map(Number);
  return fields.reduce((total, value) => total + value, 0) - fields[3] - fields[4];
}

/**
 * A sampler: each call returns { t, parts: { part: { kind: ticks } }, postgres: ticks }, the ticks
 * summed since the first call. A process's growth since the last call is its ticks now less its
 * ticks then (all of them for a process born since), less the last ticks of its children that
 * were reaped meanwhile: those were counted while they lived, and are now in its cutime. A child
 * born and reaped between two calls is counted as its parent's.
 */
function sampler() {
  let before = null;
  const parts = {};
  let postgres = 0;
  return () => {
    const processes = readProcesses();
    const known = new Map();
    const part = (pid, depth = 0) => {
      if (known.has(pid)) return known.get(pid);
      const entry = processes.get(pid);
      if (!entry || pid <= 1 || depth > 40) return null;
      const found = part(entry.ppid, depth + 1) ?? partOf(commandOf(pid, entry.started));
      known.set(pid, found);
      return found;
    };
    const same = (was, now) => was && was.started === now.started;
    const alive = (pid) => same(before.get(pid), processes.get(pid) ?? {});
    // What was counted of the processes gone since the last call, by the living process whose
    // cutime they reach: a process reaped by a parent that was itself reaped meanwhile (a
    // browser's tree when its test worker exits) reaches the nearest ancestor still alive.
    const reaped = new Map();
    if (before) {
      for (const [pid, was] of before) {
        if (alive(pid)) continue;
        let ancestor = was.ppid;
        for (let depth = 0; before.has(ancestor) && !alive(ancestor) && depth < 40; depth++) ancestor = before.get(ancestor).ppid;
        reaped.set(ancestor, (reaped.get(ancestor) ?? 0) + was.ticks);
      }
    }
    for (const entry of processes.values()) {
      const was = before?.get(entry.pid);
      // The first call only takes its bearings.
      const grown = before ? Math.max(0, entry.ticks - (same(was, entry) ? was.ticks : 0) - (reaped.get(entry.pid) ?? 0)) : 0;
      if (entry.name.startsWith('postgres')) postgres += grown;
      const name = part(entry.pid);
      if (!name || grown === 0) continue;
      const kind = kindOf(commandOf(entry.pid, entry.started), entry.name);
      parts[name] ??= {};
      parts[name][kind] = (parts[name][kind] ?? 0) + grown;
    }
    before = processes;
    return { t: Date.now(), parts, postgres, machine: machineBusy() };
  };
}

const sum = (byKind) => Object.values(byKind).reduce((total, value) => total + value, 0);
const byKindText = (byKind) =>
  Object.entries(byKind)
    .sort(([, a], [, b]) => b - a)
    .map(([kind, seconds]) => `${kind} ${seconds.toFixed(0)}`)
    .join(', ');
const add = (into, byKind) => {
  for (const [kind, seconds] of Object.entries(byKind)) into[kind] = (into[kind] ?? 0) + seconds;
};

/** The CPU-seconds each part and kind grew by from one sample to the next (the samples are sums since the first). */
function growth(samples) {
  const steps = [];
  for (let i = 1; i < samples.length; i++) {
    const before = samples[i - 1];
    const after = samples[i];
    const parts = {};
    for (const [name, kinds] of Object.entries(after.parts)) {
      for (const [kind, ticks] of Object.entries(kinds)) {
        const grown = Math.max(0, ticks - (before.parts[name]?.[kind] ?? 0));
        if (grown > 0) (parts[name] ??= {})[kind] = grown / TICKS_PER_SECOND;
      }
    }
    const step = { t: after.t, parts, postgres: Math.max(0, after.postgres - before.postgres) / TICKS_PER_SECOND, clipped: 0 };
    // No second can hold more CPU than the machine was busy: where the attributed sum says more (a reaped
    // child counted again, when its parent's parent reaped it after a reparenting), the step is scaled down to it.
    if (after.machine !== undefined && before.machine !== undefined) {
      step.machine = (after.machine - before.machine) / TICKS_PER_SECOND;
      const attributed = step.postgres + Object.values(parts).reduce((total, kinds) => total + sum(kinds), 0);
      if (attributed > step.machine) {
        const scale = step.machine / attributed;
        step.clipped = attributed - step.machine;
        step.postgres *= scale;
        for (const kinds of Object.values(parts)) for (const kind of Object.keys(kinds)) kinds[kind] *= scale;
      }
    }
    steps.push(step);
  }
  return steps;
}

/** Each spec file's time in a Playwright JSON report, per project: [{ key, start, end }], in order. */
function specSpans(reportFile) {
  if (!fs.existsSync(reportFile)) return null;
  const report = JSON.parse(fs.readFileSync(reportFile, 'utf8'));
  const spans = new Map();
  const visit = (suite, file) => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        for (const result of test.results ?? []) {
          const key = `${test.projectName} ${spec.file ?? file}`;
          const start = Date.parse(result.startTime);
          const end = start + result.duration;
          const span = spans.get(key);
          if (span) Object.assign(span, { start: Math.min(span.start, start), end: Math.max(span.end, end) });
          else spans.set(key, { key, start, end });
        }
      }
    }
    for (const child of suite.suites ?? []) visit(child, suite.file ?? file);
  };
  for (const suite of report.suites ?? []) visit(suite, suite.file);
  return [...spans.values()].sort((a, b) => a.start - b.start);
}

function report(samplesFile, resultsDir) {
  const samples = fs
    .readFileSync(samplesFile, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  const steps = growth(samples);
  const totals = {};
  let postgres = 0;
  for (const step of steps) {
    postgres += step.postgres;
    for (const [name, kinds] of Object.entries(step.parts)) add((totals[name] ??= {}), kinds);
  }
  const span = (samples.at(-1).t - samples[0].t) / 1000;
  const machine = steps.reduce((total, step) => total + (step.machine ?? 0), 0);
  const clipped = steps.reduce((total, step) => total + step.clipped, 0);
  console.log(`${span.toFixed(0)} s sampled; all PostgreSQL processes ${postgres.toFixed(0)} CPU-s`);
  if (machine > 0) {
    const attributed = postgres + Object.values(totals).reduce((total, kinds) => total + sum(kinds), 0);
    console.log(`the machine was busy ${machine.toFixed(0)} CPU-s; ${attributed.toFixed(0)} of them attributed below and to PostgreSQL (${clipped.toFixed(0)} CPU-s more were read than the machine ran, and left out)`);
  }
  for (const [name, kinds] of Object.entries(totals).sort(([, a], [, b]) => sum(b) - sum(a))) {
    console.log(`${name.padEnd(14)} ${sum(kinds).toFixed(0).padStart(6)} CPU-s  (${byKindText(kinds)})`);
  }
  const runs = {
    'e2e-browser': 'playwright-browser.json',
    'e2e-api': 'playwright-api.json',
    'e2e-api-postgres': 'playwright-api-postgres.json',
    'e2e-lifecycle': 'playwright-lifecycle.json',
  };
  for (const [name, file] of Object.entries(runs)) {
    const spans = specSpans(path.join(resultsDir, file));
    if (!spans) continue;
    const perSpec = new Map();
    for (const step of steps) {
      const kinds = step.parts[name];
      if (!kinds) continue;
      // The step covers the second before its sample; a file's last test may end up to a second before its teardown's CPU is read.
      const at = step.t - 500;
      // A run with two workers (the lifecycle run) has two files running at once: each is given half the second.
      const running = spans.filter((s) => at >= s.start && at < s.end + 1000);
      for (const span of running.length ? running : [null]) {
        const key = span?.key ?? '(global setup and teardown, between files)';
        const entry = perSpec.get(key) ?? { kinds: {}, seconds: span ? (span.end - span.start) / 1000 : 0 };
        add(entry.kinds, running.length > 1 ? Object.fromEntries(Object.entries(kinds).map(([kind, cpu]) => [kind, cpu / running.length])) : kinds);
        perSpec.set(key, entry);
      }
    }
    const runTotal = [...perSpec.values()].reduce((total, entry) => total + sum(entry.kinds), 0);
    console.log(`\n${name}: ${runTotal.toFixed(0)} CPU-s (CPU-s, seconds running, file, by kind)`);
    for (const [key, entry] of [...perSpec].sort(([, a], [, b]) => sum(b.kinds) - sum(a.kinds))) {
      console.log(`${sum(entry.kinds).toFixed(0).padStart(6)} ${entry.seconds.toFixed(0).padStart(5)} s  ${key}  (${byKindText(entry.kinds)})`);
    }
  }
}

const [command, file, resultsDir] = process.argv.slice(2);
if (command === 'sample' && file) {
  const out = fs.openSync(file, 'a');
  const sample = sampler();
  const write = () => fs.writeSync(out, JSON.stringify(sample()) + '\n');
  write();
  setInterval(write, 1000);
} else if (command === 'report' && file && resultsDir) {
  report(file, resultsDir);
} else {
  console.error('Usage: node bench/test-cpu.mjs sample <file> | report <file> <test-results folder>');
  process.exit(2);
}
