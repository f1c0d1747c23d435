import 'server-only';
import http from 'node:http';
import https from 'node:https';
import { env } from '@/lib/platform/env';
import { AppError } from '@/lib/platform/http/errors';
import { checkOutboundUrl, guardedLookupFor, privateHostLiteral } from '@/lib/platform/http/outbound';

// The one way a connection reaches a provider: a fetch (as the providers'
// SDKs take one) over node:http with the outbound address rules
// (TRIPLINE_CONNECTION_ALLOW) checked on the URL and again at connection
// time, a time limit per request, and a byte limit shared by a whole pass,
// so a provider that answers huge or endless pages is cut off.

export const REQUEST_TIMEOUT_MS = 15_000;

/** What a pass may still spend: bytes read from the provider and a deadline. Shared by its requests. */
export type Bounds = { bytesLeft: number; deadline: number; requests: number };

export class BoundReached extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BoundReached';
  }
}

/** Each provider's own API: its module's default base URL, and a host its token goes to unasked. */
export const PROVIDER_API_BASE = { github: 'https://api.github.com', gitlab: 'https://gitlab.com/api/v4', stripe: 'https://api.stripe.com' } as const;

/** The hosts a connection's token goes to without the operator naming them: the providers' own APIs. */
export const PROVIDER_API_HOSTS: readonly string[] = Object.values(PROVIDER_API_BASE).map((base) => new URL(base).hostname);

/**
 * An API base URL a connection may call with its provider token: the outbound rules
 * (TRIPLINE_CONNECTION_ALLOW), and a host that is a provider's own API, one the operator names in
 * TRIPLINE_CONNECTION_HOSTS (a GitHub Enterprise Server, a self-managed GitLab), or, where the
 * operator allows private addresses, a loopback or private address literal. The token is any team
 * secret an admin names, so a host of the admin's choosing would let them read it there
 * (docs/decisions/0120). Checked when the connection is set and before every request.
 */
export function checkApiBaseUrl(url: string): URL {
  const parsed = checkOutboundUrl(url, env().connectionAccess, 'TRIPLINE_CONNECTION_ALLOW', 'apiBaseUrl', 'an API base URL');
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (PROVIDER_API_HOSTS.includes(host) || env().connectionHosts.includes(host) || (env().connectionAccess.private && privateHostLiteral(parsed))) return parsed;
  throw new AppError('validation_failed', 'Check the URL', {
    apiBaseUrl: `Refused: ${host} is not a provider's own API (${PROVIDER_API_HOSTS.join(', ')}). The operator names other hosts, such as a GitHub Enterprise Server or a self-managed GitLab, in TRIPLINE_CONNECTION_HOSTS`,
  });
}

const lookup = guardedLookupFor(() => env().connectionAccess.private);
// Connection pools of their own: Node's shared pool keys a kept-alive connection by host and port
// only, so a request under other address rules (a notification's) could reuse one opened here.
const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };

export function boundedFetch(bounds: Bounds): typeof fetch {
  return (async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = checkApiBaseUrl(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    if (Date.now() >= bounds.deadline) throw new BoundReached('the pass reached its time limit');
    bounds.requests++;
    const headers = new Headers(init.headers);
    const body = typeof init.body === 'string' ? init.body : init.body == null ? undefined : String(init.body);
    if (body !== undefined) headers.set('content-length', String(Buffer.byteLength(body)));
    const client = url.protocol === 'https:' ? https : http;
    const timeout = Math.max(1, Math.min(REQUEST_TIMEOUT_MS, bounds.deadline - Date.now()));
    return new Promise<Response>((resolve, reject) => {
      // `timeout` below is the socket's idle time, which every byte resets: a provider that sends one byte
      // every few seconds would hold the pass (and this instance's other passes, which wait their turn)
      // forever. This bounds the whole request, headers to last byte.
      const whole = setTimeout(() => request.destroy(new Error(`no whole answer within ${Math.round(timeout / 1000)} s`)), timeout);
      const settle = <T>(done: (value: T) => void) => (value: T) => {
        clearTimeout(whole);
        done(value);
      };
      resolve = settle(resolve);
      reject = settle(reject);
      const request = client.request(url, { method: init.method ?? 'GET', headers: Object.fromEntries(headers), lookup, timeout, agent: agents[url.protocol === 'https:' ? 'https:' : 'http:'] }, (response) => {
        const chunks: Buffer[] = [];
        let cut = false;
        response.on('data', (chunk: Buffer) => {
          bounds.bytesLeft -= chunk.length;
          if (bounds.bytesLeft < 0 && !cut) {
            cut = true;
            reject(new BoundReached('the provider sent more than the pass may read'));
            request.destroy();
            return;
          }
          chunks.push(chunk);
        });
        response.on('error', reject);
        response.on('end', () => {
          if (cut) return;
          const status = response.statusCode ?? 0;
          const out = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            if (value !== undefined) out.set(name, Array.isArray(value) ? value.join(', ') : value);
          }
          const empty = status === 204 || status === 205 || status === 304;
          if (status < 200 || status > 599) return reject(new Error(`the provider answered HTTP ${status}`));
          resolve(new Response(empty ? null : Buffer.concat(chunks), { status, headers: out }));
        });
      });
      request.on('timeout', () => request.destroy(new Error(`no answer within ${Math.round(timeout / 1000)} s`)));
      request.on('error', reject);
      init.signal?.addEventListener('abort', () => request.destroy(new Error('aborted')));
      request.end(body);
    });
  }) as typeof fetch;
}
