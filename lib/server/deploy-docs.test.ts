import { spawnSync } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// Every configuration file in docs/deploy.md loads in the tool that reads it:
// the systemd units with `systemd-analyze verify`, the nginx server block
// with `nginx -t`, the Caddyfile with `caddy validate`. .ci/run installs the
// tools; on a developer machine without one, its test is skipped (CI fails on
// any skip).

const doc = fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/deploy.md'), 'utf8');

function block(title: string): string {
  const match = new RegExp('```\\w+ title=' + title.replace(/[.@]/g, '\\$&') + '\\n([\\s\\S]*?)\\n```').exec(doc);
  if (!match) throw new Error(`docs/deploy.md has no block titled ${title}`);
  return match[1]!;
}

const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-deploy-'));

function run(command: string, args: string[]): { status: number | null; output: string } {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('docs/deploy.md', () => {
  it.skipIf(!has('systemd-analyze'))('its systemd units verify', () => {
    const dir = tmp();
    for (const name of ['tripline@.service', 'tripline-worker.service']) {
      // verify needs ExecStart's program to exist: point it at this machine's node.
      const unit = block(name).replaceAll('/usr/bin/node', process.execPath);
      fs.writeFileSync(path.join(dir, name === 'tripline@.service' ? 'tripline@3000.service' : name), unit);
    }
    const result = run('systemd-analyze', ['verify', '--man=no', path.join(dir, 'tripline@3000.service'), path.join(dir, 'tripline-worker.service')]);
    // Only the unit files' own lines count: verify also reports on the host's units they name.
    const ours = result.output.split('\n').filter((line) => line.includes(dir));
    expect(ours, result.output).toEqual([]);
    expect(result.status, result.output).toBe(0);
  });

  it.skipIf(!has('nginx'))('its nginx configuration passes nginx -t', () => {
    const dir = tmp();
    fs.mkdirSync(path.join(dir, 'logs'));
    // The certificate paths are Let's Encrypt's; a throwaway pair stands in for them.
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=hooks.example.com', '-days', '1',
      '-keyout', path.join(dir, 'privkey.pem'), '-out', path.join(dir, 'fullchain.pem')], { stdio: 'ignore' });
    const server = block('tripline.conf').replaceAll('/etc/letsencrypt/live/hooks.example.com', dir);
    fs.writeFileSync(path.join(dir, 'tripline.conf'), server);
    fs.writeFileSync(
      path.join(dir, 'nginx.conf'),
      `pid ${dir}/nginx.pid;\nerror_log ${dir}/logs/error.log;\nevents {}\nhttp {\n  access_log off;\n  include ${dir}/tripline.conf;\n}\n`,
    );
    const result = run('nginx', ['-t', '-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', path.join(dir, 'logs', 'error.log')]);
    expect(result.status, result.output).toBe(0);
    expect(result.output).toContain('test is successful');
  });

  it.skipIf(!has('caddy'))('its Caddyfile passes caddy validate', () => {
    const dir = tmp();
    fs.writeFileSync(path.join(dir, 'Caddyfile'), `${block('Caddyfile')}\n`);
    const result = run('caddy', ['validate', '--config', path.join(dir, 'Caddyfile'), '--adapter', 'caddyfile']);
    expect(result.status, result.output).toBe(0);
    expect(result.output).toContain('Valid configuration');
  });

  it('names the variables the configuration reads', () => {
    for (const variable of ['TRIPLINE_TRUSTED_PROXIES', 'TRIPLINE_SHUTDOWN_GRACE_SECONDS', 'TRIPLINE_SHUTDOWN_DELAY_SECONDS', 'TRIPLINE_KEEP_ALIVE_SECONDS', 'TRIPLINE_METRICS_TOKEN']) {
      expect(doc).toContain(variable);
    }
  });
});
