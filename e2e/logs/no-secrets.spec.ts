import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { rememberedSecrets } from '../fixtures/secrets';

// Runs after every other project (playwright.config.ts): the servers' logs of
// the whole end-to-end journey hold no secret, token or credential the tests
// used, their log entries are structured JSON lines, and no
// server printed a Node.js warning.

const serversDir = path.resolve(import.meta.dirname, '..', '..', 'test-results', 'servers');

test('no secret, token or credential appears in any server log of the journey', () => {
  const secrets = rememberedSecrets();
  // Passwords, API tokens, webhook secrets, keys and the metrics token at least.
  expect(secrets.length).toBeGreaterThan(40);
  const logs = fs.readdirSync(serversDir).filter((name) => name.endsWith('.log'));
  expect(logs.length).toBeGreaterThanOrEqual(4);
  for (const name of logs) {
    const text = fs.readFileSync(path.join(serversDir, name), 'utf8');
    const leaked = secrets.filter((secret) => text.includes(secret));
    expect(leaked, `${name} contains secrets`).toEqual([]);
  }
});

test('the servers log JSON lines with a level, a time and, for requests, a request id', () => {
  const text = fs.readFileSync(path.join(serversDir, 'api-pglite.log'), 'utf8');
  const lines = text.split('\n').filter((line) => line.startsWith('{'));
  expect(lines.length).toBeGreaterThan(50);
  const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  for (const entry of entries) {
    expect(typeof entry.level).toBe('string');
    expect(typeof entry.time).toBe('string');
    expect(typeof entry.msg).toBe('string');
  }
  const refused = entries.filter((entry) => entry.msg === 'ingress request refused');
  expect(refused.length).toBeGreaterThan(5);
  for (const entry of refused) expect(entry.requestId).toMatch(/^[0-9a-f-]{36}$/);
  expect(entries.some((entry) => entry.msg === 'run succeeded' && typeof entry.runId === 'string')).toBe(true);
});

test('no server printed a Node.js warning: what is deprecated today fails in a later version', () => {
  const warnings = fs
    .readdirSync(serversDir)
    .filter((name) => name.endsWith('.log'))
    .flatMap((name) =>
      fs
        .readFileSync(path.join(serversDir, name), 'utf8')
        .split('\n')
        .filter((line) => /^\(node:\d+\) \w*Warning\b/.test(line))
        .map((line) => `${name}: ${line}`),
    );
  expect(warnings).toEqual([]);
});
