// Tripline's server: Next.js's request handler inside a Node HTTP server of
// our own (Next documents this as a custom server). It exists for the two
// things a route handler cannot do:
//
// 1. The client's address. Route handlers never see the socket. The entry
//    resolves the address from the TCP peer (and TRIPLINE_TRUSTED_PROXIES),
//    then overwrites X-Forwarded-For with it, so what the app reads through
//    clientAddress() is never the client's own word (lib/platform/entry/client-address.ts).
// 2. Shutdown. The entry is the one owner of SIGTERM and SIGINT and runs one
//    sequence: readiness turns 503, the listener closes, in-flight requests
//    are answered (idle keep-alive connections are closed, busy ones get
//    `Connection: close`), runs finish or go back to the queue, the database
//    closes. A second signal exits at once.
//
// It also gives every request an id (X-Request-Id), which every log line
// written while serving it carries, sets the browser security headers of
// every response (lib/platform/http/security-headers.ts), answers malformed percent-encoding
// before Next.js, whose route parameters would otherwise throw (500), and
// serves an ingress URL written with a trailing slash as the URL itself.
//
// Started by `npm start` (scripts/start.mjs) and `npm run dev`, with tsx.
//
// First of all, the server's V8 settings (scripts/server-flags.mjs): it may
// restart this process with them before anything else is loaded.
import './scripts/server-flags.mjs';
import http from 'node:http';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import next from 'next';
import { AppError, errorResponse } from '@/lib/platform/http/errors';
import { isTrustedPeer, markServerEntry, parseTrustedProxies, resolveClientAddress } from '@/lib/platform/entry/client-address';
import { notFound as ingressNotFound } from '@/lib/ingress/responses';
import { errorFields, log } from '@/lib/platform/log';
import { parseEntryConfig } from '@/lib/platform/entry/entry-config';
import { runShutdownStage, setPhase, shutdownStage } from '@/lib/server/lifecycle';
import { requestStore } from '@/lib/platform/entry/request-context';
import { securityHeaders } from '@/lib/platform/http/security-headers';
import { redactUrlText } from '@/lib/platform/http/secret-urls';
import { unsafeText } from '@/lib/platform/http/unsafe-text';
import { keepNewFilesPrivate } from '@/lib/platform/private-files';
import { requireSupportedNode } from './scripts/node-version.mjs';

// Before Next.js starts the app, which opens the data folder: what the server
// creates is its user's alone (lib/platform/private-files.ts). After npm
// start's build, which ran in a process of its own with the shell's umask.
keepNewFilesPrivate();

const dev = process.argv.includes('--dev');
// Before Next is loaded: it reads NODE_ENV at import.
(process.env as Record<string, string>).NODE_ENV ??= dev ? 'development' : 'production';

const logger = log('server');
let config: ReturnType<typeof parseEntryConfig>;
try {
  config = parseEntryConfig();
} catch (error) {
  logger.fatal(`cannot start: ${(error as Error).message}`);
  process.exit(1);
}
const trusted = parseTrustedProxies(config.trustedProxies);
// HSTS only when the public URL is https (lib/platform/env.ts validates the variable; the entry only reads its scheme).
const publicHttps = (process.env.TRIPLINE_BASE_URL ?? '').startsWith('https://');
markServerEntry();

const FORWARDING_HEADERS = ['x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port', 'forwarded', 'x-real-ip'];
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
// Idle keep-alive connections are closed this long after draining starts: a
// client that picked one up an instant earlier has its request in flight by
// then, and will be answered with `Connection: close`.
const IDLE_GRACE_MS = 2_000;

type UrlPart = { kind: 'segment' | 'name' | 'value'; raw: string; name: string; decoded: string | null };

/** A URL's path segments, then (with the query) each query parameter's name and value, each decoded (null: its percent-encoding does not decode to UTF-8). */
function* urlParts(url: string, withQuery: boolean): Generator<UrlPart> {
  const decode = (text: string) => {
    try {
      return decodeURIComponent(text.replace(/\+/g, ' '));
    } catch {
      return null;
    }
  };
  const [pathname = '', query = ''] = url.split(/\?(.*)/s, 2);
  for (const raw of pathname.split('/')) yield { kind: 'segment', raw, name: '', decoded: decode(raw) };
  if (!withQuery || !query) return;
  for (const pair of query.split('&')) {
    const [rawName = '', raw = ''] = pair.split(/=(.*)/s, 2);
    const name = decode(rawName);
    yield { kind: 'name', raw: rawName, name: '', decoded: name };
    yield { kind: 'value', raw, name: name ?? '', decoded: decode(raw) };
  }
}

/** The first part of a URL whose percent-encoding cannot be decoded to UTF-8: a path segment, or (for the API) a query parameter. */
function undecodable(url: string, withQuery: boolean): string | null {
  for (const part of urlParts(url, withQuery)) {
    if (part.decoded !== null) continue;
    if (part.kind === 'segment') return `the path segment "${part.raw.slice(0, 80)}"`;
    return part.kind === 'name' ? 'the name of a query parameter' : `the query parameter ${part.name.slice(0, 80)}`;
  }
  return null;
}

/**
 * Where a page's URL decodes to text no field can hold (a NUL, "%00"): the pages pass their path
 * and search params to queries, and PostgreSQL refuses such text with an error (a 500). The API
 * refuses it naming the parameter (lib/platform/http/unsafe-input.ts), the ingress as a wrong URL.
 */
function unsafePageUrl(url: string): boolean {
  for (const part of urlParts(url, true)) if (part.decoded !== null && unsafeText(part.decoded) !== null) return true;
  return false;
}

/** A URL whose percent-encoding cannot be decoded, answered the way its area answers a wrong URL. */
function malformedPath(url: string): Response | null {
  const api = url.startsWith('/api/');
  if (!api && !url.startsWith('/webhooks/') && unsafePageUrl(url)) {
    return new Response('Bad request: the URL holds a character no page accepts (a NUL, %00)\n', { status: 400, headers: { 'Content-Type': 'text/plain' } });
  }
  const where = undecodable(url, api);
  if (where === null) return null;
  // The spec makes any wrong ingress URL the one identical 404.
  if (url.startsWith('/webhooks/')) return ingressNotFound();
  if (api) return errorResponse(new AppError('bad_request', `The URL has malformed percent-encoding in ${where}: it does not decode to UTF-8 text`), { 'Cache-Control': 'no-store' });
  return new Response('Bad request: the URL has malformed percent-encoding\n', { status: 400, headers: { 'Content-Type': 'text/plain' } });
}

/**
 * An ingress URL with trailing slashes, as the URL without them. Next.js
 * would answer it 308, and senders do not follow redirects for a POST: a URL
 * pasted with a slash would lose every delivery with no entry in the log.
 */
function withoutIngressTrailingSlash(url: string): string {
  const query = url.indexOf('?');
  const pathname = query === -1 ? url : url.slice(0, query);
  if (!pathname.startsWith('/webhooks/w/') || !pathname.endsWith('/')) return url;
  return pathname.replace(/\/+$/, '') + (query === -1 ? '' : url.slice(query));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function send(res: http.ServerResponse, response: Response): Promise<void> {
  res.statusCode = response.status;
  response.headers.forEach((value, name) => res.setHeader(name, value));
  res.end(Buffer.from(await response.arrayBuffer()));
}

async function main(): Promise<void> {
  // The one server entry: every way of serving (npm start, scripts/serve.mjs, the dev server) refuses an unsupported Node.js here.
  requireSupportedNode();
  const app = next({ dev, dir: path.resolve(import.meta.dirname), port: config.port, hostname: config.listenAddress ?? 'localhost' });
  const handle = app.getRequestHandler();
  await app.prepare();

  const active = new Set<http.ServerResponse>();
  const sockets = new Set<net.Socket>();
  let draining = false;

  const server = http.createServer((req, res) => {
    active.add(res);
    res.on('close', () => active.delete(res));
    if (draining) res.shouldKeepAlive = false;

    const peerTrusted = isTrustedPeer(req.socket.remoteAddress, trusted);
    const incomingId = req.headers['x-request-id'];
    const requestId = peerTrusted && typeof incomingId === 'string' && REQUEST_ID.test(incomingId) ? incomingId : randomUUID();
    req.headers['x-forwarded-for'] = resolveClientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], trusted);
    req.headers['x-request-id'] = requestId;
    // Only a trusted proxy may say which host and scheme the client used.
    if (!peerTrusted) for (const name of FORWARDING_HEADERS) delete req.headers[name];
    res.setHeader('X-Request-Id', requestId);
    if (req.url) req.url = withoutIngressTrailingSlash(req.url);
    // Every response's security headers; a page's nonce reaches Next.js through the request's policy.
    const security = securityHeaders(req.url ?? '/', { https: publicHttps, dev });
    for (const [name, value] of Object.entries(security.response)) res.setHeader(name, value);
    if (security.requestPolicy) req.headers['content-security-policy'] = security.requestPolicy;
    else delete req.headers['content-security-policy'];

    // req.rawHeaders: what the sender sent, for the delivery log; the lines above changed only req.headers.
    requestStore().run({ requestId, receivedHeaders: req.rawHeaders }, () => {
      const malformed = malformedPath(req.url ?? '/');
      const served = malformed ? send(res, malformed) : handle(req, res);
      Promise.resolve(served).catch((error: unknown) => {
        logger.error({ ...errorFields(error), path: redactUrlText(req.url?.split('?', 1)[0] ?? '/') }, 'request failed');
        if (!res.headersSent) {
          res.statusCode = 500;
          res.end();
        } else res.destroy();
      });
    });
  });
  // Node closes an idle keep-alive connection after 5 s (plus a second's
  // buffer). A proxy keeps its idle upstream connections for longer (nginx
  // 60 s, Caddy 2 min) and ignores the Keep-Alive hint, so now and then it
  // would send a delivery into a connection Tripline is closing that instant:
  // a reset, and a 502 to the sender, since a POST is not retried. The side
  // that closes idle connections must be the proxy.
  server.keepAliveTimeout = config.keepAliveMs;
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    // A connection that never sent a byte, timed out waiting for its first request (a client's or a proxy's
    // spare connection): closed without an answer. An answer there would be read as the response to whatever
    // request the client sends on it next (seen with Node's fetch, whose pool keeps such connections).
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && (socket as net.Socket).bytesRead === 0) return void socket.destroy();
    // A request that timed out midway: 408. Malformed HTTP: 400. Never a crash.
    const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request';
    if (socket.writable && !error.code?.startsWith('ECONN')) socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
    else socket.destroy();
  });

  const reportStep = (name: string, error: unknown) => logger.error({ step: name, ...errorFields(error) }, 'shutdown step failed');
  let signals = 0;
  const shutdown = async (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals > 1) {
      logger.warn({ signal }, 'second signal: exiting at once');
      process.exit(1);
    }
    const started = Date.now();
    const deadline = started + config.shutdownGraceMs;
    logger.info({ signal, graceSeconds: config.shutdownGraceMs / 1000 }, 'shutting down: readiness is 503, draining requests and runs');
    setPhase('draining');
    // Background work (runs) starts finishing now, alongside the HTTP drain.
    const work = runShutdownStage(shutdownStage.work, deadline, reportStep);
    if (config.shutdownDelayMs > 0) await sleep(Math.min(config.shutdownDelayMs, config.shutdownGraceMs));

    // Stop accepting, but keep open connections: http.Server#close would also
    // close idle keep-alive sockets at once, racing clients that are reusing
    // them this instant. Those get a short grace instead, and every response
    // from now on says `Connection: close`.
    draining = true;
    net.Server.prototype.close.call(server);
    for (const res of active) if (!res.headersSent) res.shouldKeepAlive = false;
    const idleUntil = Math.min(deadline, Date.now() + IDLE_GRACE_MS);
    while (Date.now() < deadline && (active.size > 0 || (sockets.size > 0 && Date.now() < idleUntil))) await sleep(25);
    if (active.size > 0) logger.warn({ requests: active.size }, 'grace period over: closing requests still in flight');
    server.closeAllConnections();

    await work;
    await runShutdownStage(shutdownStage.database, deadline + 5_000, reportStep);
    setPhase('stopped');
    logger.info({ seconds: (Date.now() - started) / 1000 }, 'stopped');
    process.exit(0);
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void shutdown(signal));

  server.listen(config.port, config.listenAddress, () => {
    logger.info({ port: config.port, address: config.listenAddress ?? 'all interfaces', dev }, 'listening');
  });
  server.on('error', (error) => {
    logger.fatal({ ...errorFields(error) }, 'cannot listen');
    process.exit(1);
  });
}

main().catch((error: unknown) => {
  logger.fatal({ ...errorFields(error) }, 'cannot start');
  process.exit(1);
});
