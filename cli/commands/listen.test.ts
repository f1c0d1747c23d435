import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backoff, defaultStateFile, forwardHeaders, isLoopbackHost, listen, retryAfterMs, run } from './listen';

// tripline listen's pieces without a server (e2e/api/listen.spec.ts runs the
// command against real ones): the delay between reconnections, the headers it
// forwards, where its state lives, and a server that streams a line without end.

describe('tripline listen', () => {
  it('waits between 0.5 and 1 s first, then up to 30 s, with jitter', () => {
    expect(backoff(0, () => 0)).toBe(500);
    expect(backoff(0, () => 1)).toBe(1_000);
    expect(backoff(3, () => 0.5)).toBe(6_000);
    expect(backoff(20, () => 1)).toBe(30_000);
    expect(backoff(20, () => 0)).toBe(15_000);
  });

  it("honours a server's Retry-After in seconds or as a date, up to 5 minutes, and ignores what it cannot read", () => {
    const now = Date.parse('2026-11-30T12:00:00Z');
    expect(retryAfterMs('7', now)).toBe(7_000);
    expect(retryAfterMs('Mon, 30 Nov 2026 12:00:20 GMT', now)).toBe(20_000);
    expect(retryAfterMs('Mon, 30 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('86400', now)).toBe(300_000);
    expect(retryAfterMs('soon', now)).toBe(0);
    expect(retryAfterMs(null, now)).toBe(0);
  });

  it('answers a flag it does not know with the usage and exit code 2', async () => {
    const errors: string[] = [];
    const original = console.error;
    console.error = (text: string) => void errors.push(text);
    try {
      expect(await run(['--tokn', 'x'])).toBe(2);
    } finally {
      console.error = original;
    }
    expect(errors.join('\n')).toMatch(/tokn[\s\S]*Usage: .* listen --url/);
  });

  it('forwards the sender’s headers without hop-by-hop ones and without redacted values', () => {
    const { headers, redacted } = forwardHeaders({
      id: 'dl_1',
      deliveryId: 'd',
      status: 'accepted',
      receivedAt: '2026-11-27T00:00:00.000Z',
      eventType: null,
      detail: null,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'x-github-event': 'push',
        'x-hub-signature-256': 'sha256=abc',
        authorization: '[redacted]',
        connection: 'keep-alive',
        'keep-alive': 'timeout=5',
        'transfer-encoding': 'chunked',
        host: 'hooks.example.com',
        'content-length': '12',
        upgrade: 'h2c',
        te: 'trailers',
        'proxy-authorization': 'Basic x',
        'bad value': 'x',
      },
    });
    expect(Object.fromEntries(headers)).toEqual({ 'content-type': 'application/json; charset=utf-8', 'x-github-event': 'push', 'x-hub-signature-256': 'sha256=abc' });
    expect(redacted).toEqual(['authorization']);
  });

  it('trusts http:// only to a loopback address written in the URL (cli/listen.int.test.ts: the refusal)', () => {
    const loopback = (url: string) => isLoopbackHost(new URL(url).hostname);
    for (const url of ['http://localhost:3000', 'http://LOCALHOST/', 'http://127.0.0.1:3000', 'http://127.8.9.10/', 'http://127.1/', 'http://[::1]:3000', 'http://[0:0:0:0:0:0:0:1]/']) {
      expect(loopback(url), url).toBe(true);
    }
    // A name is not resolved to decide: one that points at 127.0.0.1 today may not tomorrow.
    for (const url of ['http://hooks.example.com', 'http://localhost.example.com', 'http://127.0.0.1.nip.io', 'http://10.0.0.1', 'http://0.0.0.0', 'http://[::ffff:127.0.0.1]', 'http://[fe80::1]']) {
      expect(loopback(url), url).toBe(false);
    }
  });

  it('keeps its state per server, factory and webhook under the state directory', () => {
    const previous = process.env.XDG_STATE_HOME;
    process.env.XDG_STATE_HOME = '/tmp/state';
    try {
      expect(defaultStateFile('https://hooks.example.com:8443/', 'acme', 'wh_1')).toBe('/tmp/state/tripline/listen/hooks.example.com_8443-acme-wh_1.json');
    } finally {
      if (previous === undefined) delete process.env.XDG_STATE_HOME;
      else process.env.XDG_STATE_HOME = previous;
    }
  });

  describe('against a server that sends a line without end', () => {
    let server: http.Server;
    let url = '';
    beforeAll(async () => {
      server = http.createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunk = 'x'.repeat(1024 * 1024);
        let sent = 0;
        const pump = () => {
          while (sent < 12 && !res.destroyed) {
            sent += 1;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
        };
        pump();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => {
      server.closeAllConnections();
      server.close();
    });

    it('gives up on that connection after 8 MiB, says so, and reconnects', async () => {
      const lines: string[] = [];
      const controller = new AbortController();
      const stateFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'listen-unit-')), 'state.json');
      const done = listen(
        { server: url, token: 't', factory: 'acme', webhook: 'wh_1', forward: 'http://127.0.0.1:9/', status: 'accepted', stateFile },
        {
          line: (text) => lines.push(text),
          error: (text) => {
            lines.push(text);
            if (text.startsWith('Disconnected')) controller.abort();
          },
        },
        controller.signal,
      );
      expect(await done).toBe(0);
      expect(lines).toContainEqual(expect.stringMatching(/^Disconnected: the connection failed \(the server sent a line longer than 8 MiB\); reconnecting in/));
    });
  });
});
