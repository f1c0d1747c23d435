import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedFetch, checkApiBaseUrl, PROVIDER_API_HOSTS } from '@/lib/domain/connections/fetch';
import { providerModule } from '@/lib/domain/connections/providers';

// The one fetch connections use, against a provider that answers too slowly
// to ever finish: one byte at a time, each well within the socket's idle time.

describe('boundedFetch', () => {
  let server: http.Server;
  let base: string;
  const drips = new Set<NodeJS.Timeout>();

  beforeAll(async () => {
    // The test's provider is on loopback, over plain HTTP: the operator's allowance. And one host of the operator's own.
    process.env.TRIPLINE_CONNECTION_ALLOW = 'http,private';
    process.env.TRIPLINE_CONNECTION_HOSTS = 'GHE.example.com, gitlab.corp.example';
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

  it("sends a provider token only to a provider's own API, a host the operator names, or an allowed private address", () => {
    // The providers' own API hosts are their modules' defaults.
    const defaults = (['github_repository', 'gitlab_project', 'stripe_account'] as const).map((kind) => new URL(providerModule(kind)!.defaultApiBaseUrl).hostname);
    expect([...PROVIDER_API_HOSTS].sort()).toEqual([...new Set(defaults)].sort());
    for (const url of ['https://api.github.com', 'https://gitlab.com/api/v4', 'https://api.stripe.com', 'https://ghe.example.com/api/v3', 'https://GITLAB.corp.example/api/v4', `${base}/api`]) {
      expect(checkApiBaseUrl(url).href).toBe(new URL(url).href);
    }
    // With private addresses allowed, a private literal is one (the URL parser writes 2130706433 as 127.0.0.1); a public literal is not.
    for (const url of ['http://localhost:8080/api', 'http://[::1]/api', 'http://10.1.2.3/api', 'http://2130706433/api']) {
      expect(() => checkApiBaseUrl(url), url).not.toThrow();
    }
    expect(() => checkApiBaseUrl('https://8.8.8.8/api')).toThrow(expect.objectContaining({ fields: { apiBaseUrl: expect.stringMatching(/^Refused: 8\.8\.8\.8 is not a provider's own API/) } }));
    // Any other host: an admin could read the token (any team secret) there.
    let refused: unknown;
    try {
      checkApiBaseUrl('https://collector.attacker.example/api/v3');
    } catch (error) {
      refused = error;
    }
    expect(refused).toMatchObject({ code: 'validation_failed', fields: { apiBaseUrl: expect.stringMatching(/^Refused: collector\.attacker\.example is not a provider's own API .*TRIPLINE_CONNECTION_HOSTS/) } });
  });
});
