import net from 'node:net';
import { expect, test } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';

// A proxy in front keeps its idle connections to Tripline for up to a minute
// or two (nginx 60 s, Caddy 2 min) and ignores the Keep-Alive hint. Tripline
// must not be the side that closes them: Node's own default would close one
// after 6 s idle, in the very instant the proxy may send a delivery into it.

/** One raw keep-alive connection, so the test sees exactly which socket answers. */
function connection(url: string) {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  let received = '';
  let closed = false;
  socket.on('data', (chunk) => (received += chunk.toString('latin1')));
  socket.on('close', () => (closed = true));
  socket.on('error', () => undefined);
  return {
    get closed() {
      return closed;
    },
    /** Sends a GET and waits for the complete response head (the bodies here are small). */
    async get(path: string): Promise<string> {
      received = '';
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`);
      const deadline = Date.now() + budget(5_000);
      while (!received.includes('\r\n\r\n') && !closed && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      return received.split('\r\n\r\n', 1)[0]!;
    },
    close: () => socket.destroy(),
  };
}

test('an idle keep-alive connection is kept for TRIPLINE_KEEP_ALIVE_SECONDS (125 s), past Node’s own 6 s', async ({ baseURL }) => {
  const socket = connection(baseURL!);
  try {
    const first = await socket.get('/healthz');
    expect(first).toMatch(/^HTTP\/1\.1 200 /);
    expect(first).toMatch(/\r\nKeep-Alive: timeout=125\r\n/i);
    // About time passing: idle for longer than Node's default keep-alive (5 s, plus its 1 s buffer), a fixed figure of Node's, not scaled.
    await new Promise((resolve) => setTimeout(resolve, 7_000));
    expect(socket.closed).toBe(false);
    expect(await socket.get('/healthz')).toMatch(/^HTTP\/1\.1 200 /);
  } finally {
    socket.close();
  }
});
