import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { budget } from '@/scripts/speed.mjs';
import { cliArgs } from '@/tests/support/bundle';
import { ONE_SHOT_FLAGS } from './one-shot-flags';

// A one-shot command restarts itself with WebAssembly on V8's baseline
// compiler (cli/engine-flags.ts, docs/decisions/0116); a long-running one
// keeps V8's default. Checked on the command line as the tests run it (the
// bundle of cli/tripline.ts): a preloaded module, which the restarted process
// inherits with the rest of Node's own arguments, records each process's
// pid and V8 arguments as it exits.

const root = path.resolve(import.meta.dirname, '..');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-engine-flags-'));
const recorder = path.join(scratch, 'record.mjs');
fs.writeFileSync(
  recorder,
  `import fs from 'node:fs';\nprocess.on('exit', () => fs.appendFileSync(process.env.ENGINE_FLAGS_LOG, JSON.stringify({ pid: process.pid, execArgv: process.execArgv }) + '\\n'));\n`,
);
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

function run(args: string[]): { pid: number; execArgv: string[] }[] {
  const log = path.join(scratch, `${args.join('-').replace(/\W+/g, '_')}.log`);
  const env: NodeJS.ProcessEnv = { ...process.env, ENGINE_FLAGS_LOG: log, TRIPLINE_DATA_DIR: path.join(scratch, 'data') };
  delete env.DATABASE_URL;
  const result = spawnSync(process.execPath, ['--import', recorder, ...cliArgs(args)], { cwd: root, env, encoding: 'utf8', timeout: budget(60_000) });
  expect(result.error).toBeUndefined();
  return fs
    .readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { pid: number; execArgv: string[] });
}

describe("the command line's V8 flags", () => {
  it('a one-shot command runs with WebAssembly on the baseline compiler, in the same process', () => {
    // `validate` with no file: a command that exits at once, without a database.
    const exits = run(['validate', path.join(scratch, 'missing.yaml')]);
    // The first process was replaced in place (same pid), so only the command's own process exits.
    expect(exits).toHaveLength(1);
    expect(exits[0]!.execArgv).toEqual(expect.arrayContaining([...ONE_SHOT_FLAGS, '--import', recorder, '--conditions=react-server']));
    expect(exits[0]!.execArgv.filter((flag) => flag === ONE_SHOT_FLAGS[0])).toHaveLength(1);
  });

  it('a long-running command, and --help, keep V8 default', () => {
    for (const args of [['worker', '--help'], ['listen', '--help'], ['--help']]) {
      const exits = run(args);
      expect(exits, args.join(' ')).toHaveLength(1);
      for (const flag of ONE_SHOT_FLAGS) expect(exits[0]!.execArgv, args.join(' ')).not.toContain(flag);
    }
  });

  it("the pack's template step opens its database with the same flags", () => {
    const pack = fs.readFileSync(path.join(root, 'scripts', 'pack.mjs'), 'utf8');
    expect(pack).toContain(`run(process.execPath, [${ONE_SHOT_FLAGS.map((flag) => `'${flag}'`).join(', ')}, 'scripts/pack/embedded-template.mjs', out]);`);
  });
});
