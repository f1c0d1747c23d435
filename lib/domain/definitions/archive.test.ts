import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { definitionsArchive } from '@/lib/domain/definitions/archive';

describe('the definitions archive', () => {
  it('is a .tar.gz that tar extracts to webhooks/<name>.yaml', () => {
    const files = {
      'webhooks/github-deploys.yaml': 'authMode: signature\nsignatureScheme: github\nsecretName: GITHUB_DEPLOYS_WEBHOOK_SECRET\n',
      'webhooks/cron.yaml': `secretName: CRON\n# ${'x'.repeat(600)}\n`,
    };
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tripline-archive-'));
    try {
      const archive = path.join(dir, 'definitions.tar.gz');
      writeFileSync(archive, definitionsArchive(files, new Date('2026-01-02T03:04:05Z')));
      expect(execFileSync('tar', ['-tzvf', archive], { encoding: 'utf8' })).toMatch(/^drwxr-xr-x .* webhooks\/\n-rw-r--r-- .* 2026-01-02 .* webhooks\/cron\.yaml\n/);
      execFileSync('tar', ['-xzf', archive, '-C', dir]);
      for (const [file, content] of Object.entries(files)) expect(readFileSync(path.join(dir, file), 'utf8')).toBe(content);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
