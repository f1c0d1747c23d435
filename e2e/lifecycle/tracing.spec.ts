import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { attributesOf, otlpCollector } from '../../tests/support/otlp-collector';
import { migratedDataDir, type RunningServer, seedWebhook, serverEnv, startServer } from '../servers';

// OpenTelemetry traces for one delivery that starts one run, received by an
// OTLP/HTTP collector of the test's own. The server exports OTLP/HTTP in its
// default encoding, protobuf (@opentelemetry/exporter-trace-otlp-proto); the
// collector decodes it with OpenTelemetry's own .proto files
// (tests/support/otlp-collector.ts), and the test checks the spans' names,
// attributes and parent links, the trace context the run's program received
// (TRACEPARENT), and the trace ID on the server's log lines. The JSON encoding
// is lib/platform/tracing-protocols.test.ts's.

const port = Number(process.env.E2E_PORT_BASE ?? 3210) + 44;
const base = `http://localhost:${port}`;

test('one delivery that starts one run: its spans, their attributes and parent links, TRACEPARENT for the program, and the trace ID in the log', async () => {
  test.setTimeout(budget(180_000));
  const otlp = await otlpCollector();
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-tracing-'));
  const traceparentFile = path.join(scratch, 'traceparent');
  let server: RunningServer | undefined;
  try {
    const env = serverEnv(migratedDataDir('tracing'), base, {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: otlp.url,
      OTEL_SERVICE_NAME: 'tripline-e2e',
      OTEL_BSP_SCHEDULE_DELAY: '200',
      TRIPLINE_RUN_COMMAND: `printf %s "$TRACEPARENT" > '${traceparentFile}'`,
      TRIPLINE_LOG_FORMAT: 'json',
    });
    const { token, uid, secret } = seedWebhook(env, 'traced', 'orders');
    server = await startServer('tracing', port, env);
    const api = (route: string, init: RequestInit = {}) =>
      fetch(`${base}/api/v1/factories/traced${route}`, { ...init, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' } });
    const created = await api('/automations', {
      method: 'POST',
      body: JSON.stringify({ name: 'review', prompt: 'Review it.', triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [uid] } }] }),
    });
    expect(created.status, await created.clone().text()).toBe(201);

    const body = JSON.stringify({ action: 'opened', marker: 'traced-body-marker' });
    const posted = await fetch(`${base}/webhooks/w/${uid}`, { method: 'POST', headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' }, body });
    expect(posted.status).toBe(202);
    await expect.poll(async () => ((await (await api('/runs')).json()) as { runs: { status: string }[] }).runs.map((run) => run.status), { timeout: budget(60_000) }).toEqual(['succeeded']);

    const named = (name: string) => otlp.received.filter(({ span }) => span.name === name);
    await expect
      .poll(() => ['tripline.ingress', 'tripline.ingress.record', 'tripline.run', 'tripline.executor.command'].map((name) => named(name).length), { timeout: budget(30_000) })
      .toEqual([1, 1, 1, 1]);
    const [ingress, record, run, executor] = ['tripline.ingress', 'tripline.ingress.record', 'tripline.run', 'tripline.executor.command'].map((name) => named(name)[0]!);
    expect([...otlp.contentTypes]).toEqual(['application/x-protobuf']);
    expect(otlp.errors).toEqual([]);
    expect(ingress!.resource['service.name']).toBe('tripline-e2e');

    // One trace: the delivery's request, its database work, the run it started, and the executor.
    const traceId = ingress!.span.traceId;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    for (const received of [record, run, executor]) expect(received!.span.traceId).toBe(traceId);
    expect(record!.span.parentSpanId).toBe(ingress!.span.spanId);
    expect(run!.span.parentSpanId).toBe(ingress!.span.spanId);
    expect(executor!.span.parentSpanId).toBe(run!.span.spanId);

    const { runs } = (await (await api('/runs')).json()) as { runs: { id: string }[] };
    expect(attributesOf(ingress!.span.attributes)).toMatchObject({
      'tripline.webhook.uid': uid,
      'http.request.method': 'POST',
      'http.response.status_code': 202,
      'tripline.ingress.outcome': 'accepted',
      'tripline.webhook.auth_mode': 'token',
      'tripline.runs_started': 1,
    });
    expect(attributesOf(record!.span.attributes)).toMatchObject({ 'db.system.name': 'postgresql' });
    expect(attributesOf(run!.span.attributes)).toMatchObject({ 'tripline.run.id': runs[0]!.id, 'tripline.run.outcome': 'succeeded', 'tripline.run.attempt': 1 });
    expect(attributesOf(executor!.span.attributes)).toMatchObject({ 'tripline.executor': 'command', 'tripline.run.id': runs[0]!.id });

    // The whole trace as a tree, for the log of the test (docs/tracing.md shows one).
    const inTrace = otlp.received.filter(({ span }) => span.traceId === traceId).map(({ span }) => span);
    const tree = (parent: string | undefined, depth: number): string[] =>
      inTrace
        .filter((span) => (span.parentSpanId || undefined) === parent || (depth === 0 && parent === undefined && !inTrace.some((other) => other.spanId === span.parentSpanId)))
        .flatMap((span) => [`${'  '.repeat(depth)}${span.name} ${JSON.stringify(attributesOf(span.attributes))}`, ...tree(span.spanId, depth + 1)]);
    console.log(`trace ${traceId}:\n${tree(undefined, 0).join('\n')}`);

    // The program received the executor span's context, so its own telemetry joins the trace.
    expect(fs.readFileSync(traceparentFile, 'utf8')).toBe(`00-${traceId}-${executor!.span.spanId}-01`);

    // No span carries the secret, the token or the body.
    const everything = JSON.stringify(otlp.received);
    for (const forbidden of [secret, token, 'traced-body-marker']) expect(everything).not.toContain(forbidden);

    // A sender's W3C traceparent is linked, not continued: the trace is Tripline's own, and is recorded
    // though the sender asked for no sampling (flags 00).
    const senderTrace = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    const senderSpan = '0102030405060708';
    const linked = await fetch(`${base}/webhooks/w/${uid}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json', traceparent: `00-${senderTrace}-${senderSpan}-00` },
      body: '{"action":"linked"}',
    });
    expect(linked.status).toBe(202);
    const linking = () => named('tripline.ingress').find(({ span }) => span.links?.some((link) => link.traceId === senderTrace))?.span;
    await expect.poll(() => linking()?.links, { timeout: budget(30_000) }).toEqual([expect.objectContaining({ traceId: senderTrace, spanId: senderSpan })]);
    expect(linking()!.traceId).not.toBe(senderTrace);
    expect(linking()!.parentSpanId).toBeUndefined();
    expect(otlp.received.some(({ span }) => span.traceId === senderTrace)).toBe(false);

    // A path that is not a UID (here 4,000 characters) is answered 404, and its span does not keep it.
    const hostile = 'x'.repeat(4_000);
    expect((await fetch(`${base}/webhooks/w/${hostile}`, { method: 'POST', body: '{}' })).status).toBe(404);
    await expect.poll(() => named('tripline.ingress').some(({ span }) => attributesOf(span.attributes)['http.response.status_code'] === 404), { timeout: budget(30_000) }).toBe(true);
    expect(JSON.stringify(otlp.received)).not.toContain(hostile);

    // A URL token webhook's delivery: its span names the webhook, never the token in its URL.
    const byUrl = await api('/webhooks', { method: 'POST', body: JSON.stringify({ name: 'by-url', authMode: 'url_token' }) });
    expect(byUrl.status).toBe(201);
    const { webhook: urlHook, ingressUrl } = (await byUrl.json()) as { webhook: { uid: string }; ingressUrl: string };
    const urlToken = new URL(ingressUrl).pathname.split('/').at(-1)!;
    expect((await fetch(ingressUrl, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })).status).toBe(202);
    await expect.poll(() => otlp.received.some(({ span }) => attributesOf(span.attributes)['tripline.webhook.uid'] === urlHook.uid), { timeout: budget(30_000) }).toBe(true);
    expect(JSON.stringify(otlp.received)).not.toContain(urlToken);

    // The run's log line names the trace and its span.
    const lines = fs.readFileSync(server.logFile, 'utf8').split('\n').filter((line) => line.startsWith('{'));
    const succeeded = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.msg === 'run succeeded');
    expect(succeeded).toMatchObject({ traceId, spanId: run!.span.spanId });
  } finally {
    await server?.stop();
    await otlp.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
});
