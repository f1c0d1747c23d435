import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedFetch } from '@/lib/domain/connections/fetch';

// The one fetch connections use, against a provider that answers too slowly
// to ever finish: one byte at a time, each well within the socket's idle time.

describe('boundedFetch', () => {
  let server: http.Server;
  let base: string;
  const drips = new Set<NodeJS.Timeout>();

  beforeAll(async () => {
    // The test's provider is on loopback, over plain HTTP: the operator's allowance.
    process.env.TRIPLINE_CONNECTION_ALLOW = 'http,private';
    server = http.createServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.write('[');
      const drip = setInterval(() => response.write(' '), 50);
      drips.add(drip);
      response.on('close', () => clearInterval(drip));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const drip of drips) clearInterval(drip);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('ends a request that never finishes, though bytes keep coming, at its time limit', async () => {
    const bounds = { bytesLeft: 1_000_000, deadline: Date.now() + 500, requests: 0 };
    await expect(boundedFetch(bounds)(`${base}/repos/acme/app/hooks`)).rejects.toThrow(/no whole answer within/);
    expect(bounds.requests).toBe(1);
  });
});
