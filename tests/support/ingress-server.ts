import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleIngress } from '@/lib/ingress/pipeline';

// The ingress over real HTTP for integration tests whose sender is a real
// HTTP client (a fake provider): each request becomes the Request the route
// handler would pass to lib/ingress. While `down`, connections are cut
// before any answer, as when Tripline is stopped.

export type IngressServer = { url: string; down: boolean; close(): Promise<void> };

export async function startIngressServer(): Promise<IngressServer> {
  const state = { url: '', down: false };
  const server = http.createServer((request, response) => {
    if (state.down) {
      request.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const match = /^\/webhooks\/w\/([^/?]+)(?:\/([^/?]+))?/.exec(request.url ?? '');
      if (!match) {
        response.writeHead(404).end();
        return;
      }
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers.set(name, value);
      const forwarded = new Request(`${state.url}${request.url}`, { method: request.method, headers, body: request.method === 'GET' ? undefined : Buffer.concat(chunks) });
      handleIngress(forwarded, { uid: match[1]!, ...(match[2] ? { token: match[2] } : {}) })
        .then(async (answer) => {
          response.writeHead(answer.status, Object.fromEntries(answer.headers));
          response.end(Buffer.from(await answer.arrayBuffer()));
        })
        .catch(() => response.writeHead(500).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(state, {
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}

/**
 * The ingress for connection tests, set up before the first env() read:
 * Tripline's base URL (the address it gives the provider) is this server,
 * connections may reach the fake provider on loopback, and redeliveries come
 * at the test's pace, above the default 60 a minute per webhook.
 */
export async function startConnectionIngress(): Promise<IngressServer> {
  const ingress = await startIngressServer();
  process.env.TRIPLINE_BASE_URL = ingress.url;
  process.env.TRIPLINE_CONNECTION_ALLOW = 'http,private';
  process.env.TRIPLINE_DELIVERY_RATE_LIMIT = '100000';
  return ingress;
}
