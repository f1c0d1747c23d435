import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { OPERATOR_ACCESS } from '@/lib/domain/definitions/repository-access';
import { classifyGitFailure, fetchRepository } from '@/lib/domain/definitions/repository';
import { GIT_ADDRESS_SPACE_BYTES, GitFailure, gitVersionProblem, runGit, STDERR_LIMIT } from '@/lib/domain/definitions/repository-git';
import { env } from '@/lib/platform/env';
import { budget } from '@/scripts/speed.mjs';

// How git is run, seen from git's side: a fake `git` first on PATH records
// the arguments and the environment it was started with, so these tests see
// exactly what a real git would (and what `ps` or /proc would show).

const PUBLIC = '140.82.112.3';
const TOKEN = 'ghp_s3cretTOKENvalue';
const realPath = process.env.PATH;
let dir: string;
let log: string;

/** Installs a fake git whose behaviour for `fetch` is `fetchScript` (sh). */
function fakeGit(fetchScript: string) {
  const script = `#!/bin/sh
{ echo "--- ARGV"; for arg in "$@"; do echo "$arg"; done; echo "--- ENV"; env; } >> '${log}'
for arg in "$@"; do
  case "$arg" in
    --version) echo "git version 2.39.5"; exit 0;;
    init) mkdir -p "$4" && touch "$4/HEAD"; exit 0;;
    fetch) ${fetchScript};;
  esac
done
exit 0
`;
  writeFileSync(path.join(dir, 'git'), script);
  chmodSync(path.join(dir, 'git'), 0o755);
}

/** The recorded invocations: each with its arguments and environment. */
function invocations() {
  return readFileSync(log, 'utf8')
    .split('--- ARGV\n')
    .filter(Boolean)
    .map((block) => {
      const [argv, environment] = block.split('--- ENV\n');
      const envEntries = environment!.split('\n').filter(Boolean).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]);
      const vars = Object.fromEntries(envEntries) as Record<string, string>;
      const config: Record<string, string> = {};
      for (let i = 0; i < Number(vars.GIT_CONFIG_COUNT ?? 0); i++) config[vars[`GIT_CONFIG_KEY_${i}`]!] = vars[`GIT_CONFIG_VALUE_${i}`]!;
      return { argv: argv!.split('\n').filter(Boolean), env: vars, config, raw: block };
    });
}

const fetchCall = () => invocations().find((call) => call.argv.includes('fetch'))!;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'tripline-fake-git-'));
  log = path.join(dir, 'calls.log');
  process.env.PATH = `${dir}:${realPath}`;
  // What a server may well have: an SSH agent, its own git configuration, secrets.
  process.env.SSH_AUTH_SOCK = '/tmp/ssh-agent.sock';
  process.env.GIT_CONFIG_PARAMETERS = `'url.https://evil.example.com/.insteadof'='https://github.com/'`;
  process.env.GIT_SSH_COMMAND = 'ssh -i /root/.ssh/id_ed25519';
  process.env.GIT_ASKPASS = '/usr/bin/server-askpass';
});
afterEach(() => rmSync(log, { force: true }));
afterAll(() => {
  process.env.PATH = realPath;
  delete process.env.SSH_AUTH_SOCK;
  delete process.env.GIT_CONFIG_PARAMETERS;
  delete process.env.GIT_SSH_COMMAND;
  delete process.env.GIT_ASKPASS;
  rmSync(dir, { recursive: true, force: true });
});

describe('git for a repository fetch', () => {
  it('runs with an environment of its own, pinned to the checked address, with the credential only in its environment', async () => {
    fakeGit(`echo "fatal: Authentication failed for 'https://github.com/acme/defs.git/'" >&2; exit 128`);
    const target = { url: 'https://github.com/acme/defs.git', branch: 'main', credential: { username: 'deploy', password: TOKEN }, access: OPERATOR_ACCESS };
    await expect(fetchRepository('factory-1', target, { lookup: async () => [PUBLIC] })).rejects.toMatchObject({ category: 'auth' });

    const call = fetchCall();
    // Nothing of the server's environment but PATH.
    expect(call.env.SSH_AUTH_SOCK).toBeUndefined();
    expect(call.env.GIT_CONFIG_PARAMETERS).toBeUndefined();
    expect(call.env.GIT_SSH_COMMAND).toBeUndefined();
    expect(call.env.GIT_ASKPASS).toBeUndefined();
    expect(call.env.TRIPLINE_SECRETS_KEY).toBeUndefined();
    expect(call.env.HOME).not.toBe(os.homedir());
    expect(call.env.HOME).toMatch(/tripline-git-/);
    expect(existsSync(call.env.HOME!)).toBe(false); // removed afterwards
    expect(Object.keys(call.env).filter((key) => !/^(GIT_CONFIG_(KEY|VALUE)_\d+|PWD|SHLVL|_|OLDPWD)$/.test(key)).sort()).toEqual(
      ['GIT_ALLOW_PROTOCOL', 'GIT_CONFIG_COUNT', 'GIT_CONFIG_GLOBAL', 'GIT_CONFIG_NOSYSTEM', 'GIT_TERMINAL_PROMPT', 'HOME', 'LANG', 'LC_ALL', 'MALLOC_ARENA_MAX', 'PATH', 'XDG_CONFIG_HOME'].sort(),
    );
    expect(call.env).toMatchObject({ GIT_CONFIG_GLOBAL: os.devNull, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', GIT_ALLOW_PROTOCOL: 'https' });
    expect(call.config).toMatchObject({
      'protocol.allow': 'never',
      'credential.helper': '',
      'core.askPass': '',
      'http.followRedirects': 'false',
      'http.curloptResolve': `github.com:443:${PUBLIC}`,
      'http.extraHeader': `Authorization: Basic ${Buffer.from(`deploy:${TOKEN}`).toString('base64')}`,
    });
    // Shallow, one branch, no tags, small blobs only, and the URL after "--", without the credential.
    expect(call.argv).toEqual(expect.arrayContaining(['fetch', '--no-tags', '--depth=1', '--filter=blob:limit=16384', '--no-recurse-submodules']));
    expect(call.argv.slice(call.argv.indexOf('--'))).toEqual(['--', 'https://github.com/acme/defs.git', '+refs/heads/main:refs/tripline/head']);
    // The token is on no command line of any git started.
    for (const invocation of invocations()) expect(invocation.argv.join(' ')).not.toContain(TOKEN);
  });

  it('gives ssh no agent, no keys of the server and no configuration, and connects it to the checked address', async () => {
    fakeGit(`echo "git@github.com: Permission denied (publickey)." >&2; exit 128`);
    const target = { url: 'git@github.com:acme/defs.git', branch: 'main', credential: null, access: OPERATOR_ACCESS };
    await expect(fetchRepository('factory-1', target, { lookup: async () => [PUBLIC] })).rejects.toMatchObject({ category: 'auth' });
    const call = fetchCall();
    expect(call.env.GIT_ALLOW_PROTOCOL).toBe('ssh');
    const ssh = call.config['core.sshCommand']!;
    for (const option of ['-F /dev/null', 'BatchMode=yes', 'IdentityAgent=none', 'PubkeyAuthentication=no', 'PasswordAuthentication=no', `HostName=${PUBLIC}`, 'HostKeyAlias=github.com', 'StrictHostKeyChecking=accept-new']) {
      expect(ssh).toContain(option);
    }
    expect(ssh).toContain(`UserKnownHostsFile='${path.join(env().dataDir, 'repositories', 'known_hosts')}'`);
  });

  it("keeps an ssh host's key by host and port: another port of the same host is another server", async () => {
    fakeGit(`echo "git@git.corp.example: Permission denied (publickey)." >&2; exit 128`);
    const target = { url: 'ssh://git@git.corp.example:2222/acme/defs.git', branch: 'main', credential: null, access: OPERATOR_ACCESS };
    await expect(fetchRepository('factory-1', target, { lookup: async () => [PUBLIC] })).rejects.toMatchObject({ category: 'auth' });
    expect(fetchCall().config['core.sshCommand']).toContain("-o 'HostKeyAlias=[git.corp.example]:2222'");
  });

  it('tells the requester a fixed category, never what the host said', async () => {
    fakeGit(`echo "fatal: unable to access 'https://github.com/x.git/': Empty reply from server; INTERNAL BANNER postgres 15.4" >&2; exit 128`);
    const target = { url: 'https://github.com/x.git', branch: 'main', credential: null, access: OPERATOR_ACCESS };
    const error = (await fetchRepository('factory-1', target, { lookup: async () => [PUBLIC] }).catch((e: unknown) => e)) as Error;
    expect(error).toMatchObject({ category: 'connect' });
    expect(error.message).not.toMatch(/Empty reply|BANNER|postgres/);
  });

  it('refuses before starting git at all', async () => {
    fakeGit('exit 0');
    const target = { url: 'https://localhost/x.git', branch: 'main', credential: null, access: { http: false, git: false, file: false, private: false } };
    await expect(fetchRepository('factory-1', target)).rejects.toMatchObject({ category: 'private' });
    expect(existsSync(log)).toBe(false);
  });
});

describe('runGit limits', () => {
  const home = () => mkdtempSync(path.join(os.tmpdir(), 'tripline-git-home-'));

  it('stops git and everything it started at the time limit', async () => {
    const pidFile = path.join(dir, 'child.pid');
    // The grandchild holds git's pipes open: were it left running, runGit would wait for it to end.
    const grandchildSeconds = 30;
    fakeGit(`sleep ${grandchildSeconds} & echo $! > '${pidFile}'; wait`);
    const started = Date.now();
    await expect(runGit(['fetch'], { home: home(), protocols: '', timeoutMs: 500, maxStdout: 1024 })).rejects.toMatchObject({ kind: 'timeout' });
    const ms = Date.now() - started;
    console.log(`runGit gave up ${ms} ms after it started git, with a 500 ms time limit (the grandchild alone: ${grandchildSeconds} s)`);
    expect(ms).toBeLessThan((grandchildSeconds * 1000) / 2);
    const child = Number(readFileSync(pidFile, 'utf8'));
    // The grandchild is gone too (or a zombie left for init to reap: killed, not running), once its SIGKILL is delivered.
    const state = () => (existsSync(`/proc/${child}/stat`) ? readFileSync(`/proc/${child}/stat`, 'utf8').split(') ')[1]![0] : 'gone');
    await vi.waitFor(() => expect(['gone', 'Z', 'X']).toContain(state()), { timeout: budget(5_000) });
  });

  it('keeps only the tail of a flood on stderr, and stops a flood on stdout', async () => {
    fakeGit(`head -c 1000000 /dev/zero | tr '\\0' 'a' >&2; echo "fatal: couldn't find remote ref refs/heads/main" >&2; exit 128`);
    const failure = (await runGit(['fetch'], { home: home(), protocols: '', timeoutMs: 10_000, maxStdout: 1024 }).catch((e: unknown) => e)) as GitFailure;
    expect(failure.kind).toBe('exit');
    expect(failure.stderr.length).toBeLessThanOrEqual(STDERR_LIMIT);
    expect(classifyGitFailure(failure, 'main').category).toBe('branch');

    fakeGit(`head -c 10000000 /dev/zero`);
    await expect(runGit(['fetch'], { home: home(), protocols: '', timeoutMs: 10_000, maxStdout: 64 * 1024 })).rejects.toMatchObject({ kind: 'too_large' });
  });

  // Where the system refuses the limit (macOS's sh, a lower hard limit), git runs without it, by design.
  const limitable = spawnSync('/bin/sh', ['-c', `ulimit -v ${GIT_ADDRESS_SPACE_BYTES / 1024}`]).status === 0;
  it.runIf(limitable)('runs git, and every process it starts, under the address-space limit, with large blobs streamed', async () => {
    // The fake git's shell reads the limit it inherited, as git's own children (ssh, index-pack) would.
    fakeGit(`ulimit -v; exit 0`);
    const out = await runGit(['fetch'], { home: home(), protocols: '', timeoutMs: 10_000, maxStdout: 1024 });
    expect(out.toString().trim()).toBe(String(GIT_ADDRESS_SPACE_BYTES / 1024));
    expect(fetchCall().config).toMatchObject({ 'core.bigFileThreshold': '1m', 'pack.threads': '1' });
    expect(fetchCall().env.MALLOC_ARENA_MAX).toBe('2');
  });

  it('says git is missing when it is not on PATH', async () => {
    process.env.PATH = path.join(dir, 'nothing-here');
    try {
      await expect(runGit(['fetch'], { home: home(), protocols: '', timeoutMs: 10_000, maxStdout: 1024 })).rejects.toMatchObject({ kind: 'missing' });
    } finally {
      process.env.PATH = `${dir}:${realPath}`;
    }
  });

  it('stops a fetch that writes more than its size limit', async () => {
    const watched = mkdtempSync(path.join(os.tmpdir(), 'tripline-git-watch-'));
    fakeGit(`head -c 5000000 /dev/zero > '${watched}/pack'; sleep 5`);
    await expect(
      runGit(['fetch'], { home: home(), protocols: '', timeoutMs: 10_000, maxStdout: 1024, watch: { dir: watched, maxBytes: 1_000_000 } }),
    ).rejects.toMatchObject({ kind: 'too_large' });
    rmSync(watched, { recursive: true, force: true });
  });
});

describe('failure categories', () => {
  it.each([
    ["fatal: couldn't find remote ref refs/heads/prod", 'branch'],
    ["fatal: Authentication failed for 'https://git.example.com/x.git/'", 'auth'],
    ["fatal: could not read Username for 'https://github.com': terminal prompts disabled", 'auth'],
    ['git@github.com: Permission denied (publickey).', 'auth'],
    ["fatal: unable to access 'https://x/': The requested URL returned error: 403", 'auth'],
    ["fatal: unable to access 'https://x/': Empty reply from server", 'connect'],
    ["fatal: unable to access 'https://x/': Failed to connect to x port 443: Connection refused", 'connect'],
    ['fatal: repository not found', 'connect'],
    ['Host key verification failed.', 'connect'],
    ['', 'connect'],
  ])('%j is %s', (stderr, category) => {
    expect(classifyGitFailure(new GitFailure('exit', stderr), 'prod').category).toBe(category);
  });

  it('says timed out, too large and missing git in its own words', () => {
    expect(classifyGitFailure(new GitFailure('timeout', 'whatever'), 'main').message).toMatch(/^Timed out/);
    expect(classifyGitFailure(new GitFailure('too_large', ''), 'main').message).toMatch(/^Too large/);
    expect(classifyGitFailure(new GitFailure('missing', ''), 'main').category).toBe('no_git');
  });
});

describe('the git a fetch needs', () => {
  it('refuses a git older than 2.37, whose settings the fetch relies on, and takes this machine\'s', () => {
    // Ubuntu 22.04's git would drop the pinned address, Debian 11's every setting given through the environment.
    expect(gitVersionProblem('git version 2.34.1')).toMatch(/^the server's git is 2\.34: repositories need git 2\.37 or newer/);
    expect(gitVersionProblem('git version 2.30.2')).toMatch(/git is 2\.30/);
    expect(gitVersionProblem('git version 1.9.9')).toMatch(/git is 1\.9/);
    expect(gitVersionProblem('git version 2.37.0')).toBeNull();
    expect(gitVersionProblem('git version 3.0.0')).toBeNull();
    expect(gitVersionProblem('git version 2.39.5\n')).toBeNull();
    expect(gitVersionProblem('hub version 2.14')).toMatch(/did not say its version/);
    const installed = spawnSync('git', ['--version'], { encoding: 'utf8', env: { ...process.env, PATH: realPath } }).stdout;
    expect(gitVersionProblem(installed)).toBeNull();
  });
});
