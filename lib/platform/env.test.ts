import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseEnv as parseProcessEnv } from '@/lib/platform/env';

// The run executor's configuration: which server variables a run may see,
// where its folder lives, how many runs a factory may queue.

const parseEnv = (source: Record<string, string>) => parseProcessEnv(source as NodeJS.ProcessEnv);

const base = { TRIPLINE_DATA_DIR: '/srv/tripline/data', TRIPLINE_RUN_COMMAND: 'agent' };

describe('run executor configuration', () => {
  it('passes only the listed variable names, trimmed and deduplicated', () => {
    const { executor } = parseEnv({ ...base, TRIPLINE_RUN_ENV: ' ANTHROPIC_API_KEY, AGENT_LOG,ANTHROPIC_API_KEY,' });
    expect(executor).toMatchObject({ kind: 'command', passEnv: ['ANTHROPIC_API_KEY', 'AGENT_LOG'] });
    expect(parseEnv(base).executor).toMatchObject({ passEnv: [] });
  });

  it("refuses to pass Tripline's own configuration, HOME, or something that is not a name", () => {
    for (const name of ['TRIPLINE_SECRETS_KEY', 'DATABASE_URL', 'TEST_DATABASE_URL', 'NEXTAUTH_SECRET', 'HOME']) {
      expect(() => parseEnv({ ...base, TRIPLINE_RUN_ENV: `AGENT_LOG,${name}` }), name).toThrow(new RegExp(`TRIPLINE_RUN_ENV: ${name}: `));
    }
    expect(() => parseEnv({ ...base, TRIPLINE_RUN_ENV: 'A B' })).toThrow(/TRIPLINE_RUN_ENV: A B: not a variable name/);
  });

  it('puts run folders in the temporary folder, or the configured one, never inside the data folder', () => {
    expect(parseEnv(base).executor).toMatchObject({ workDir: path.resolve(os.tmpdir()) });
    expect(parseEnv({ ...base, TRIPLINE_RUN_WORK_DIR: '/srv/tripline/runs' }).executor).toMatchObject({ workDir: '/srv/tripline/runs' });
    expect(parseEnv({ ...base, TRIPLINE_RUN_WORK_DIR: '/srv/tripline/data-runs' }).executor).toMatchObject({ workDir: '/srv/tripline/data-runs' });
    expect(() => parseEnv({ ...base, TRIPLINE_RUN_WORK_DIR: '/srv/tripline/data/runs' })).toThrow(/TRIPLINE_RUN_WORK_DIR: \/srv\/tripline\/data\/runs is inside the data folder/);
    expect(() => parseEnv({ ...base, TRIPLINE_RUN_WORK_DIR: '/srv/tripline/data' })).toThrow(/inside the data folder/);
    expect(() => parseEnv({ ...base, TRIPLINE_DATA_DIR: path.join(os.tmpdir(), '..') })).toThrow(/TRIPLINE_RUN_WORK_DIR \(unset: the temporary folder, TMPDIR\)/);
  });

  it('gives a stopped command 10 s between SIGTERM and SIGKILL unless told otherwise, from 0 to an hour', () => {
    expect(parseEnv(base).executor).toMatchObject({ cancelGraceMs: 10_000 });
    expect(parseEnv({ ...base, TRIPLINE_RUN_CANCEL_GRACE_SECONDS: '0' }).executor).toMatchObject({ cancelGraceMs: 0 });
    expect(parseEnv({ ...base, TRIPLINE_RUN_CANCEL_GRACE_SECONDS: '30' }).executor).toMatchObject({ cancelGraceMs: 30_000 });
    for (const value of ['-1', '3601', '1.5', 'soon']) {
      expect(() => parseEnv({ ...base, TRIPLINE_RUN_CANCEL_GRACE_SECONDS: value }), value).toThrow(/TRIPLINE_RUN_CANCEL_GRACE_SECONDS/);
    }
  });
});

describe('connection hosts', () => {
  it('reads host names, lowercase, by comma or space; refuses a scheme, port or path, naming the variable', () => {
    expect(parseEnv(base).connectionHosts).toEqual([]);
    expect(parseEnv({ ...base, TRIPLINE_CONNECTION_HOSTS: ' GHE.example.com, gitlab.corp.example  git.internal ' }).connectionHosts).toEqual(['ghe.example.com', 'gitlab.corp.example', 'git.internal']);
    for (const value of ['https://ghe.example.com', 'ghe.example.com:8443', 'ghe.example.com/api/v3', 'ghe.example.com,bad_host!']) {
      expect(() => parseEnv({ ...base, TRIPLINE_CONNECTION_HOSTS: value }), value).toThrow(/TRIPLINE_CONNECTION_HOSTS: must list host names/);
    }
  });
});
