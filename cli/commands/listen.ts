import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { CLI, parseOptions, required, UsageError } from '../args';

// `tripline listen`: forwards a webhook's deliveries from a Tripline server to
// a local URL, for developing a handler on a laptop (docs/local-development.md).
//
// It talks to the server's API over HTTP(S) with an API token, never to a
// database: it reads the stream of the webhook's log (server-sent events,
// GET .../deliveries/stream) and posts each accepted delivery's exact body and
// the sender's headers to --forward. Its position is the id of the last entry
// forwarded, kept in a small state file written (atomically) after each
// forward, so a listener stopped, asleep or offline resumes with what arrived
// meanwhile, once, in order. It imports no Prisma and no lib/ module.

const HELP = `Usage: ${CLI} listen --url <server> --token <api token> --factory <slug> --webhook <uid> --forward <local url> [options]

Forwards a webhook's accepted deliveries to a local URL, in order, each once,
resuming where it stopped.

Options:
  --url <url>          the Tripline server (https://hooks.example.com); http://
                       only for a loopback address (localhost, 127.0.0.1, [::1])
  --insecure           allow an http:// --url on another host: the token then
                       crosses the network in clear
  --token <token>      an API token; a factory admin's token forwards the
                       original signature headers. Prefer TRIPLINE_TOKEN, which
                       keeps the token out of the process list (the listener
                       runs for hours) and the shell's history
  --factory <slug>     the factory
  --webhook <uid>      the webhook (wh_...)
  --forward <url>      where to POST each delivery (http://localhost:8000/hook)
  --since <when>       on the first start (no state yet): begin this far back
                       (90s, 30m, 1h, 2d, or an ISO 8601 time); default: from now
  --status <status>    entries to show (default accepted; only accepted ones
                       keep a body and are forwarded)
  --event <pattern>    only this event type, or a pattern with * segments
  --resign <whsec_...> sign each forwarded request with Standard Webhooks
                       (webhook-id, webhook-timestamp, webhook-signature); or
                       TRIPLINE_RESIGN_SECRET, which keeps the secret out of
                       the process list and the shell's history
  --state-file <path>  where the position is kept (default: see below)
  --help

The state file defaults to $XDG_STATE_HOME/tripline/listen/<host>-<factory>-<webhook>.json
(~/.local/state/... when XDG_STATE_HOME is unset).`;

/** The longest Retry-After the listener honours: a server or proxy asking for more is asked again after this. */
const MAX_RETRY_AFTER_MS = 300_000;

/**
 * A Retry-After header in ms: seconds, or an HTTP date (RFC 9110 §10.2.3, as proxies and maintenance
 * pages send), 0 when absent or unreadable, at most 5 minutes. (A date read as a number was NaN,
 * and the listener reconnected in a tight loop.)
 */
export function retryAfterMs(header: string | null, now = Date.now()): number {
  if (header === null) return 0;
  const value = header.trim();
  const ms = /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value) - now;
  return Number.isFinite(ms) ? Math.min(Math.max(0, ms), MAX_RETRY_AFTER_MS) : 0;
}

/** Request headers that describe one connection, not the delivery (RFC 9110 §7.6.1), or that fetch sets itself. */
export const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'content-length', 'expect']);
const REDACTED = '[redacted]';

type Entry = {
  id: string;
  deliveryId: string;
  status: string;
  receivedAt: string;
  eventType: string | null;
  detail: string | null;
  body?: string;
  bodyEncoding?: 'utf8' | 'base64';
  headers?: Record<string, string>;
  signatureHeaders?: 'original' | 'redacted' | 'none';
};

type State = { server: string; factory: string; webhook: string; after: string; receivedAt: string };

/** Thrown for answers that retrying cannot fix (401, 403, 404, 422): the listener stops with this message. */
class Fatal extends Error {}

export function defaultStateFile(server: string, factory: string, webhook: string): string {
  const base = process.env.XDG_STATE_HOME || path.join(os.homedir(), '.local', 'state');
  const host = new URL(server).host.replace(/[^A-Za-z0-9.-]/g, '_');
  return path.join(base, 'tripline', 'listen', `${host}-${factory}-${webhook}.json`);
}

function readState(file: string, expected: Omit<State, 'after' | 'receivedAt'>): State | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new UsageError(`Cannot read the state file ${file}: ${(error as Error).message}`);
  }
  let state: State;
  try {
    state = JSON.parse(text) as State;
  } catch {
    throw new UsageError(`The state file ${file} is not valid JSON: delete it to start from now (or --since)`);
  }
  if (typeof state.after !== 'string' || state.server !== expected.server || state.factory !== expected.factory || state.webhook !== expected.webhook) {
    throw new UsageError(`The state file ${file} belongs to another webhook or server: give another --state-file`);
  }
  return state;
}

/**
 * Written to a temporary file and renamed over the old one: a crash leaves the
 * old state or the new, never half of one. The temporary name is random and
 * opened with 'wx' (O_CREAT|O_EXCL, which also refuses a symbolic link): in a
 * folder other users can write (a shared --state-file location), a link
 * planted at a name they could predict would otherwise be followed, and the
 * state written into whatever file it points at.
 */
function writeState(file: string, state: State): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${randomBytes(8).toString('hex')}.tmp`;
  const fd = fs.openSync(temporary, 'wx', 0o600);
  try {
    try {
      fs.writeSync(fd, JSON.stringify(state) + '\n');
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temporary, file);
  } catch (error) {
    // The file is ours (created above): a failed write or rename leaves nothing behind.
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}

const colours = { green: 32, yellow: 33, red: 31, dim: 2, cyan: 36 } as const;
function painter(stream: NodeJS.WriteStream) {
  const on = Boolean(stream.isTTY) && !('NO_COLOR' in process.env && process.env.NO_COLOR !== '');
  return (colour: keyof typeof colours, text: string) => (on ? `\u001b[${colours[colour]}m${text}\u001b[0m` : text);
}

/** A reconnection delay: exponential from 1 s to 30 s, with full jitter. */
export function backoff(attempt: number, random = Math.random): number {
  const ceiling = Math.min(30_000, 1_000 * 2 ** Math.min(attempt, 5));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** The headers to forward: the sender's, minus hop-by-hop ones and values the log redacted. */
export function forwardHeaders(entry: Entry): { headers: Headers; redacted: string[] } {
  const headers = new Headers();
  const redacted: string[] = [];
  for (const [name, value] of Object.entries(entry.headers ?? {})) {
    if (HOP_BY_HOP.has(name.toLowerCase())) continue;
    if (value === REDACTED) {
      redacted.push(name);
      continue;
    }
    try {
      headers.set(name, value);
    } catch {
      // A value fetch refuses (it never reached the ingress this way either): left out.
    }
  }
  if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  return { headers, redacted };
}

/** The SSE events of a response body: {id, event, data} per event; comments (heartbeats) give `null`. */
async function* serverSentEvents(body: ReadableStream<Uint8Array>, signal: AbortSignal): AsyncGenerator<{ id?: string; event: string; data: string } | null> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event: { id?: string; event: string; data: string[] } = { event: 'message', data: [] };
  const reader = body.getReader();
  const onAbort = () => void reader.cancel().catch(() => {});
  signal.addEventListener('abort', onAbort);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      const text = decoder.decode(value, { stream: true });
      buffer += text;
      // One line at most 8 MiB (a 256 KiB body as JSON is far smaller): a server that never ends a line cannot fill the memory.
      if (buffer.length > 8 * 1024 * 1024 && !/[\r\n]/.test(text)) throw new Error('the server sent a line longer than 8 MiB');
      if (!/[\r\n]/.test(text)) continue;
      let match: RegExpExecArray | null;
      while ((match = /\r\n|\r|\n/.exec(buffer))) {
        const line = buffer.slice(0, match.index);
        buffer = buffer.slice(match.index + match[0].length);
        if (line === '') {
          if (event.data.length) yield { id: event.id, event: event.event, data: event.data.join('\n') };
          event = { event: 'message', data: [] };
          continue;
        }
        if (line.startsWith(':')) {
          yield null;
          continue;
        }
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const text = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') event.data.push(text);
        else if (field === 'event') event.event = text;
        else if (field === 'id') event.id = text;
      }
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    reader.releaseLock();
  }
}

type Options = {
  server: string;
  token: string;
  factory: string;
  webhook: string;
  forward: string;
  since?: string;
  status: string;
  event?: string;
  resign?: StandardWebhook;
  stateFile: string;
};

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

const timeOfDay = (date: Date) => date.toTimeString().slice(0, 8);

export async function listen(options: Options, out: { line: (text: string) => void; error: (text: string) => void }, signal: AbortSignal): Promise<number> {
  const paint = painter(process.stdout);
  const paintErr = painter(process.stderr);
  const identity = { server: new URL(options.server).origin, factory: options.factory, webhook: options.webhook };
  let state = readState(options.stateFile, identity);
  const streamUrl = new URL(`/api/v1/factories/${encodeURIComponent(options.factory)}/webhooks/${encodeURIComponent(options.webhook)}/deliveries/stream`, options.server);
  let attempt = 0;
  let warnedRedacted = false;
  let listening = false;

  out.line(`Forwarding ${paint('cyan', options.webhook)} of ${options.factory} on ${identity.server} to ${options.forward}`);
  out.line(
    state
      ? paint('dim', `Resuming after ${state.after} (received ${state.receivedAt}); state in ${options.stateFile}`)
      : paint('dim', `${options.since ? `Starting ${options.since} back` : 'Starting from now'}; state in ${options.stateFile}`),
  );

  /** Posts one delivery to the local URL until it answers; a refused connection is retried with backoff, never skipped. */
  async function forward(entry: Entry): Promise<void> {
    const body = entry.bodyEncoding === 'base64' ? Buffer.from(entry.body ?? '', 'base64') : Buffer.from(entry.body ?? '', 'utf8');
    const { headers, redacted } = forwardHeaders(entry);
    if (options.resign) {
      const at = new Date();
      headers.set('webhook-id', entry.id);
      headers.set('webhook-timestamp', String(Math.floor(at.getTime() / 1000)));
      headers.set('webhook-signature', options.resign.sign(entry.id, at, body.toString('utf8')));
    } else if (redacted.length && !warnedRedacted) {
      warnedRedacted = true;
      out.error(
        paintErr(
          'yellow',
          entry.signatureHeaders === 'redacted'
            ? `Note: ${redacted.join(', ')} arrive redacted: only a factory admin's token forwards original signature headers. Use --resign to sign for the local receiver.`
            : `Note: ${redacted.join(', ')} are credentials the log never keeps; they are not forwarded.`,
        ),
      );
    }
    for (let tries = 0; ; tries++) {
      const started = performance.now();
      try {
        const response = await fetch(options.forward, { method: 'POST', headers, body, signal, redirect: 'manual' });
        await response.arrayBuffer().catch(() => undefined);
        const ms = Math.round(performance.now() - started);
        const status = response.status;
        const colour = status < 300 ? 'green' : status < 400 ? 'yellow' : 'red';
        out.line(`${timeOfDay(new Date())}  ${(entry.eventType ?? '(no type)').padEnd(28)} ${paint(colour, String(status))}  ${String(ms).padStart(5)} ms  ${paint('dim', entry.id)}`);
        return;
      } catch (error) {
        if (signal.aborted) throw error;
        const wait = backoff(tries);
        out.error(paintErr('red', `The local URL ${options.forward} refused the delivery ${entry.id} (${describe(error)}); trying it again in ${(wait / 1000).toFixed(1)} s`));
        await sleep(wait, signal);
        if (signal.aborted) throw error;
      }
    }
  }

  while (!signal.aborted) {
    const url = new URL(streamUrl);
    url.searchParams.set('status', options.status);
    if (options.event) url.searchParams.set('event', options.event);
    if (state) url.searchParams.set('after', state.after);
    else if (options.since) url.searchParams.set('since', options.since);
    let response: Response;
    try {
      response = await fetch(url, { headers: { Authorization: `Bearer ${options.token}`, Accept: 'text/event-stream' }, signal });
    } catch (error) {
      if (signal.aborted) break;
      const wait = backoff(attempt++);
      out.error(paintErr('yellow', `Cannot reach ${identity.server} (${describe(error)}); reconnecting in ${(wait / 1000).toFixed(1)} s`));
      await sleep(wait, signal);
      continue;
    }
    if (!response.ok) {
      const message = await errorMessage(response);
      if (response.status === 401) throw new Fatal(`The server refused the token (401): ${message}. Create one with \`tripline token create\` or in the dashboard.`);
      if (response.status === 403) throw new Fatal(`The token may not read this factory (403): ${message}`);
      if (response.status === 404) throw new Fatal(`Not found (404): ${message}. Check --factory ${options.factory} and --webhook ${options.webhook}, and --url.`);
      if (response.status === 422 && state && /after/.test(message)) {
        out.error(paintErr('yellow', `The last entry forwarded, ${state.after}, is no longer in the log (${message}); resuming from its time, ${state.receivedAt}`));
        options = { ...options, since: state.receivedAt };
        state = null;
        continue;
      }
      if (response.status === 422) throw new Fatal(`The server refused the options (422): ${message}`);
      const wait = Math.max(backoff(attempt++), retryAfterMs(response.headers.get('retry-after')));
      out.error(paintErr('yellow', `The server answered ${response.status} (${message}); reconnecting in ${(wait / 1000).toFixed(1)} s`));
      await sleep(wait, signal);
      continue;
    }
    // The server fixed the stream's start before answering: from here, every delivery it accepts is forwarded.
    // The line is documented (docs/local-development.md) so a script can wait for it; it is printed once, uncoloured.
    if (!listening) {
      listening = true;
      const from = state ? `after ${state.after}` : options.since ? `from ${options.since} back` : 'from now';
      out.line(`Listening: forwarding ${options.webhook}'s deliveries ${from} to ${options.forward}`);
    } else if (attempt > 0) out.error(paintErr('green', 'Connected again.'));
    attempt = 0;
    // Until a first entry is stored, a reconnect starts where this stream did: from --since, or, started
    // "from now", from the time the server answered (to the second), so nothing accepted meanwhile is lost.
    if (!state && !options.since) {
      const answered = Date.parse(response.headers.get('date') ?? '');
      options = { ...options, since: new Date(Number.isNaN(answered) ? Date.now() : answered).toISOString() };
    }
    let ended = 'the connection closed';
    try {
      for await (const event of serverSentEvents(response.body!, signal)) {
        if (!event) continue;
        if (event.event === 'end') {
          ended = `the server ended the stream (${(JSON.parse(event.data) as { reason?: string }).reason ?? 'no reason'})`;
          continue;
        }
        if (event.event === 'position') {
          // Entries the filters leave out were read up to here: resume after them.
          const position = JSON.parse(event.data) as { after: string; receivedAt: string };
          state = { ...identity, after: position.after, receivedAt: position.receivedAt };
          writeState(options.stateFile, state);
          continue;
        }
        if (event.event !== 'delivery') continue;
        const entry = JSON.parse(event.data) as Entry;
        if (entry.status === 'accepted' && typeof entry.body === 'string') await forward(entry);
        else out.line(`${timeOfDay(new Date())}  ${(entry.eventType ?? '(no type)').padEnd(28)} ${paint('dim', `${entry.status}, not forwarded${entry.detail ? `: ${entry.detail}` : ''}`)}  ${paint('dim', entry.id)}`);
        state = { ...identity, after: entry.id, receivedAt: entry.receivedAt };
        writeState(options.stateFile, state);
      }
    } catch (error) {
      if (signal.aborted) break;
      ended = `the connection failed (${describe(error)})`;
    }
    if (signal.aborted) break;
    const wait = backoff(attempt++);
    out.error(paintErr('yellow', `Disconnected: ${ended}; reconnecting in ${(wait / 1000).toFixed(1)} s`));
    await sleep(wait, signal);
  }
  out.line(paint('dim', state ? `Stopped; the next start resumes after ${state.after}.` : 'Stopped.'));
  return 0;
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
}

async function errorMessage(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const parsed = JSON.parse(text) as { error?: { message?: string } };
    if (parsed.error?.message) return parsed.error.message;
  } catch {
    // Not the API's JSON: a proxy's page, say.
  }
  return text.slice(0, 200).trim() || response.statusText;
}

function httpUrl(value: string, flag: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--${flag} must be a URL (http:// or https://), not ${value}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--${flag} must be an http:// or https:// URL`);
  return url;
}

/**
 * Whether a URL's host (as URL parses it: lower case, IPv4 in dotted form,
 * IPv6 compressed and in brackets) is this machine's loopback interface,
 * where http:// crosses no network: localhost, 127.0.0.0/8 or ::1. No DNS
 * lookup: another name that resolves to 127.0.0.1 is not trusted with the token.
 */
export function isLoopbackHost(hostname: string): boolean {
  if (hostname === 'localhost' || hostname === '[::1]') return true;
  return net.isIPv4(hostname) && hostname.startsWith('127.');
}

/** The server's URL: https://, or http:// where the token crosses no network, or with --insecure. */
function serverUrl(value: string, insecure: boolean): string {
  const url = httpUrl(value, 'url');
  if (url.protocol === 'http:' && !insecure && !isLoopbackHost(url.hostname)) {
    throw new UsageError(
      `--url ${url.origin} is http:// on another host: the API token would cross the network in clear. ` +
        'Use https://, or add --insecure to send it over http:// anyway (http:// needs neither on a loopback address: localhost, 127.0.0.1, [::1]).',
    );
  }
  return url.toString();
}

/** The --resign secret, from the flag or TRIPLINE_RESIGN_SECRET (out of ps and the shell's history). */
function resignSecret(flag: string | undefined): StandardWebhook | undefined {
  const [value, source] = flag !== undefined ? [flag, '--resign'] : [process.env.TRIPLINE_RESIGN_SECRET || undefined, 'TRIPLINE_RESIGN_SECRET'];
  if (value === undefined) return undefined;
  if (!/^whsec_[A-Za-z0-9+/=]{16,}$/.test(value)) throw new UsageError(`${source} must be a Standard Webhooks secret: whsec_ followed by base64 (at least 16 characters)`);
  return new StandardWebhook(value);
}

export async function run(args: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseListenOptions>;
  try {
    parsed = parseListenOptions(args);
  } catch (error) {
    // A flag it does not know, or one without its value: wrong usage, exit 2 with the usage, as every command.
    if (error instanceof UsageError) {
      console.error(`${error.message}\n\n${HELP}`);
      return 2;
    }
    throw error;
  }
  const { values } = parsed;
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  return runWith(values);
}

function parseListenOptions(args: string[]) {
  return parseOptions(
    args,
    {
      url: { type: 'string' },
      token: { type: 'string' },
      factory: { type: 'string' },
      webhook: { type: 'string' },
      forward: { type: 'string' },
      since: { type: 'string' },
      status: { type: 'string' },
      event: { type: 'string' },
      resign: { type: 'string' },
      insecure: { type: 'boolean' },
      'state-file': { type: 'string' },
      help: { type: 'boolean' },
    },
    { allowPositionals: false },
  );
}

async function runWith(values: ReturnType<typeof parseListenOptions>['values']): Promise<number> {
  let options: Options;
  try {
    const server = serverUrl(required(values.url, 'url'), values.insecure === true);
    const factory = required(values.factory, 'factory');
    const webhook = required(values.webhook, 'webhook');
    const token = values.token ?? process.env.TRIPLINE_TOKEN;
    if (!token) throw new UsageError('Missing --token (or TRIPLINE_TOKEN): an API token of the server');
    const resign = resignSecret(values.resign);
    options = {
      server,
      token,
      factory,
      webhook,
      forward: httpUrl(required(values.forward, 'forward'), 'forward').toString(),
      since: values.since,
      status: values.status ?? 'accepted',
      event: values.event,
      resign,
      stateFile: path.resolve(values['state-file'] ?? defaultStateFile(server, factory, webhook)),
    };
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`${error.message}\n\n${HELP}`);
      return 2;
    }
    throw error;
  }
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    return await listen(options, { line: (text) => console.log(text), error: (text) => console.error(text) }, controller.signal);
  } catch (error) {
    if (error instanceof Fatal || error instanceof UsageError) {
      console.error(painter(process.stderr)('red', error.message));
      return 1;
    }
    throw error;
  }
}
