// The two-commands start on each maintained Node.js LTS line: for 22, 24 and
// 26 (but the one running this, see below), a fresh clone of this repository runs README.md's `npm install && npm
// start` (taken from its "Two commands" block, not copied here) with that
// line's official Node.js build on PATH, on the embedded database, until the
// first page is served. `npm test` starts it first and lets it run beside
// every other step at the lowest CPU priority (NODE_LINES_NICE=19): it uses
// the time the other steps leave idle instead of slowing them; alone:
// `node scripts/node-lines.mjs [22 24 26]`.
//
// Node.js builds come from the npm registry (node-<platform>-<arch>@<major>,
// the packages the `node` package installs), cached in
// $TRIPLINE_NODE_LINES_DIR (default ~/.cache/tripline/node-lines). The clone
// is of the committed HEAD: uncommitted changes are not in it.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LTS_LINES } from './node-version.mjs';
import { budget } from './speed.mjs';

const root = path.resolve(import.meta.dirname, '..');
const cache = process.env.TRIPLINE_NODE_LINES_DIR ?? path.join(os.homedir(), '.cache', 'tripline', 'node-lines');
// The line this process runs on is left out by default: `npm test` on a fresh
// clone (as .ci/run does) already ran `npm install` on it, and the README
// quick start spec runs its `npm start`.
const own = Number(process.versions.node.split('.')[0]);
const lines = process.argv.slice(2).length ? process.argv.slice(2).map(Number) : LTS_LINES.filter((major) => major !== own);
const basePort = Number(process.env.E2E_PORT_BASE ?? 3210) + 60;
// A guard against a start that hangs, not a speed goal. A line's install and
// start take about 40 s with the machine to itself, so it gets 10 minutes from
// when it has the machine: from its own start when run alone, and, at the
// lowest priority beside npm test's other steps, from when npm test says they
// are done (SIGUSR2). Until then only a 60-minute bound applies: a line starved
// by the tests is waiting, not hanging. Both are budgets, scaled by the speed
// factor npm test measured (scripts/speed.mjs).
const TIME_ALONE_MS = budget(10 * 60_000);
const TIME_BESIDE_MS = budget(60 * 60_000);
let othersDoneAt = process.env.NODE_LINES_NICE ? undefined : 0;
process.on('SIGUSR2', () => {
  othersDoneAt ??= Date.now();
});
const report = process.env.NODE_LINES_REPORT;
// Everything this starts (npm, the build, the server) inherits the priority.
const nice = Number(process.env.NODE_LINES_NICE ?? 0);
if (nice > 0) os.setPriority(nice);

/** README's start command: the first line of its "Two commands" block, without the comment. */
function startCommand() {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Two commands'));
  const block = /```sh\n([\s\S]*?)\n```/.exec(section)?.[1] ?? '';
  const command = block.split('\n').find((line) => /npm start/.test(line))?.replace(/#.*$/, '').trim();
  if (!command) throw new Error('README.md has no "Two commands" block with npm start');
  return command;
}

/** The bin folder of the official Node.js build of a major line, installed from the registry once. */
function nodeBin(major) {
  const dir = path.join(cache, String(major));
  const name = `node-${process.platform}-${process.arch}`;
  const bin = path.join(dir, 'node_modules', name, 'bin');
  if (!fs.existsSync(path.join(bin, 'node'))) {
    fs.mkdirSync(dir, { recursive: true });
    const npm = spawnSync('npm', ['install', '--prefix', dir, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `${name}@${major}`], { encoding: 'utf8' });
    if (npm.status !== 0) throw new Error(`npm could not install ${name}@${major}:\n${npm.stderr}`);
  }
  return bin;
}

/** A shell as a newcomer has it: none of this test run's Tripline settings. */
function newcomerEnv(bin, port) {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('TRIPLINE_') || key.startsWith('NEXT_') || key.startsWith('npm_') || ['DATABASE_URL', 'PORT', 'CI', 'NODE_OPTIONS'].includes(key)) continue;
    env[key] = value;
  }
  return { ...env, PATH: `${bin}${path.delimiter}${process.env.PATH}`, PORT: String(port), NEXT_TELEMETRY_DISABLED: '1' };
}

/**
 * Gives a new session the lowest priority as a whole. With Linux's autogroup
 * scheduling (on by default here) each session is a scheduling group that
 * competes with the others as an equal whatever its processes' nice values:
 * at nice 19 but in a session of its own, a line still took half the machine
 * from Vitest. The group's own nice value is what counts.
 */
function lowerSession(pid) {
  try {
    fs.writeFileSync(`/proc/${pid}/autogroup`, String(nice));
  } catch {
    // No autogroups (another kernel or OS): the processes' own priority applies.
  }
}

/** Whether a line started at `started` has had its time. */
function outOfTime(started) {
  const now = Date.now();
  if (othersDoneAt === undefined) return now > started + TIME_BESIDE_MS;
  return now > Math.max(started, othersDoneAt) + TIME_ALONE_MS;
}

async function firstPage(port, child, started) {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode} before serving a page`);
    try {
      const response = await fetch(`http://localhost:${port}/`, { signal: AbortSignal.timeout(10_000) });
      const html = await response.text();
      // A fresh instance sends its first visitor to the first-run page.
      if (response.ok && response.url.endsWith('/setup') && html.includes('Tripline')) return;
    } catch {
      // Not listening yet.
    }
    if (outOfTime(started)) throw new Error('no first page within the time allowed');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

async function tryLine(major, index, command) {
  const started = Date.now();
  const bin = nodeBin(major);
  const version = execFileSync(path.join(bin, 'node'), ['-v'], { encoding: 'utf8' }).trim();
  const clone = fs.mkdtempSync(path.join(os.tmpdir(), `tripline-node${major}-`));
  const port = basePort + index;
  const logFile = path.join(root, 'test-results', 'node-lines', `node-${major}.log`);
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  execFileSync('git', ['clone', '-q', root, clone]);
  const log = fs.openSync(logFile, 'w');
  // A session of its own (detached), so that the whole tree can be stopped at the end.
  const child = spawn('bash', ['-euo', 'pipefail', '-c', command], { cwd: clone, env: newcomerEnv(bin, port), stdio: ['ignore', log, log], detached: true });
  if (nice > 0) lowerSession(child.pid);
  const endSession = () => {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  };
  // Interrupted (Ctrl-C on npm test), the line's own session would outlive this process.
  const stop = () => {
    endSession();
    try {
      fs.rmSync(clone, { recursive: true, force: true, maxRetries: 5 });
    } catch {
      // Its processes were still writing; the folder is under the system's temporary folder.
    }
    process.exit(130);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await firstPage(port, child, started);
    return { major, version, ok: true, seconds: (Date.now() - started) / 1000 };
  } catch (error) {
    const tail = fs.readFileSync(logFile, 'utf8').split('\n').slice(-30).join('\n');
    return { major, version, ok: false, seconds: (Date.now() - started) / 1000, error: `${error.message}\n${tail}` };
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    endSession();
    await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', resolve)));
    fs.rmSync(clone, { recursive: true, force: true });
  }
}

const status = spawnSync('git', ['status', '--porcelain'], { cwd: root, encoding: 'utf8' }).stdout.trim();
if (status) console.log('node-lines: the working tree has uncommitted changes; the clones hold the committed HEAD only');
const command = startCommand();
const results = [];
for (const [index, major] of lines.entries()) {
  const result = await tryLine(major, index, command);
  results.push(result);
  console.log(
    result.ok
      ? `node-lines: ✓ Node.js ${result.version}: \`${command}\` on a fresh clone served the first page in ${result.seconds.toFixed(1)} s`
      : `node-lines: ✗ Node.js ${result.version}: ${result.error}`,
  );
}
if (report) fs.writeFileSync(report, JSON.stringify(results, null, 2));
process.exit(results.every((result) => result.ok) ? 0 : 1);
