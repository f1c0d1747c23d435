import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

// A real git smart-HTTP server for tests: node:http in front of
// `git http-backend` (CGI), on 127.0.0.1. It records every connection and
// request, so a test can assert what reached it (or that nothing did), and
// can require HTTP Basic credentials or answer with a redirect instead.

export type RecordedRequest = { method: string; url: string; headers: http.IncomingHttpHeaders };

export type GitHttpServer = {
  port: number;
  connections: number;
  requests: RecordedRequest[];
  close: () => Promise<void>;
};

export async function startGitHttpServer(options: {
  /** Folder holding the repositories (GIT_PROJECT_ROOT); without it every request gets 404. */
  root?: string;
  /** Answer 401 unless the request carries these Basic credentials. */
  basicAuth?: { username: string; password: string };
  /** Answer every request with a redirect to this URL. */
  redirectTo?: string;
}): Promise<GitHttpServer> {
  const state = { connections: 0, requests: [] as RecordedRequest[] };
  const server = http.createServer((request, response) => {
    state.requests.push({ method: request.method!, url: request.url!, headers: request.headers });
    if (options.redirectTo) {
      response.writeHead(302, { Location: options.redirectTo }).end();
      return;
    }
    if (options.basicAuth) {
      const expected = `Basic ${Buffer.from(`${options.basicAuth.username}:${options.basicAuth.password}`).toString('base64')}`;
      if (request.headers.authorization !== expected) {
        response.writeHead(401, { 'WWW-Authenticate': 'Basic realm="test"' }).end('INTERNAL BANNER: credentials please');
        return;
      }
    }
    if (!options.root) {
      response.writeHead(404).end('INTERNAL BANNER: nothing here');
      return;
    }
    const url = new URL(request.url!, 'http://localhost');
    const cgiEnv: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      GIT_PROJECT_ROOT: options.root,
      GIT_HTTP_EXPORT_ALL: '1',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'uploadpack.allowFilter',
      GIT_CONFIG_VALUE_0: 'true',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: request.method!,
      CONTENT_TYPE: request.headers['content-type'] ?? '',
      HTTP_CONTENT_ENCODING: String(request.headers['content-encoding'] ?? ''),
      GIT_PROTOCOL: String(request.headers['git-protocol'] ?? ''),
      REMOTE_ADDR: '127.0.0.1',
    };
    const cgi = spawn('git', ['http-backend'], { env: cgiEnv as NodeJS.ProcessEnv });
    request.pipe(cgi.stdin);
    const chunks: Buffer[] = [];
    cgi.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    cgi.on('close', () => {
      const output = Buffer.concat(chunks);
      const end = output.indexOf('\r\n\r\n');
      const head = output.subarray(0, end).toString('latin1');
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head.split('\r\n')) {
        const [name, ...rest] = line.split(':');
        const value = rest.join(':').trim();
        if (name!.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
        else headers[name!] = value;
      }
      response.writeHead(status, headers).end(output.subarray(end + 4));
    });
  });
  server.on('connection', () => {
    state.connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get connections() {
      return state.connections;
    },
    requests: state.requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
