// What a traced delivery costs in CPU inside one process: `node bench/span-cost.mjs`.
//
// Makes the two spans the ingress makes for a delivery (tripline.ingress and
// its child tripline.ingress.record, with their attributes), with the SDK set
// up as lib/platform/tracing.ts sets it up (parent-based always-on sampler, a
// batch processor of 512 spans), and measures the process's CPU per delivery
// for each way of exporting them:
//   none        spans made and ended, no processor
//   discard     the batch processor, an exporter that drops each batch
//   json        each batch serialized as OTLP/JSON
//   json-copied the same, each span first copied onto a prototype of its own,
//               as the redacting exporter did before 2026-11-30
//   proto       each batch serialized as OTLP protobuf (the default)
// The serializers are the exporters' own (@opentelemetry/otlp-transformer);
// nothing is sent, so no other process's work counts. Settings: BENCH_SPANS
// (deliveries per run, default 50,000), BENCH_ROUNDS (default 3), or modes as
// arguments.
import { ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import * as sdk from '@opentelemetry/sdk-trace';
import os from 'node:os';

const deliveries = Number(process.env.BENCH_SPANS ?? 50_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const modes = process.argv.slice(2).length ? process.argv.slice(2) : ['none', 'discard', 'json-copied', 'json', 'proto'];

const copied = (span) => Object.create(span, { name: { value: span.name }, attributes: { value: Object.fromEntries(Object.entries(span.attributes)) } });

function exporterFor(mode) {
  const serializer = mode.startsWith('json') ? JsonTraceSerializer : mode === 'proto' ? ProtobufTraceSerializer : null;
  return {
    bytes: 0,
    export(spans, done) {
      if (serializer) this.bytes += serializer.serializeRequest(mode === 'json-copied' ? spans.map(copied) : spans).length;
      done({ code: 0 });
    },
    shutdown: async () => undefined,
  };
}

async function measure(mode) {
  const exporter = exporterFor(mode);
  const processors = mode === 'none' ? [] : [new sdk.BatchSpanProcessor({ exporter, scheduledDelayMillis: 5_000, maxQueueSize: 2_048, maxExportBatchSize: 512 })];
  const provider = new sdk.TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'tripline' }),
    sampler: new sdk.ParentBasedSampler({ root: new sdk.AlwaysOnSampler() }),
    spanProcessors: processors,
  });
  const tracer = provider.getTracer('tripline');
  const delivery = async () => {
    const ingress = tracer.startSpan('tripline.ingress', { kind: SpanKind.INTERNAL, attributes: { 'tripline.webhook.uid': 'wh_0123456789abcdef', 'http.request.method': 'POST' } }, ROOT_CONTEXT);
    const record = tracer.startSpan('tripline.ingress.record', { attributes: { 'db.system.name': 'postgresql', 'db.operation.name': 'record delivery' } }, trace.setSpan(ROOT_CONTEXT, ingress));
    await null;
    record.end();
    ingress.setAttributes({ 'http.response.status_code': 202, 'tripline.ingress.outcome': 'accepted', 'tripline.webhook.auth_mode': 'token', 'tripline.event_type': 'push' });
    ingress.end();
  };
  // Yield to the event loop as a server does between requests, so the processor's batches go out (a full queue drops spans).
  const run = async (count) => {
    for (let i = 0; i < count; i++) {
      await delivery();
      if (i % 256 === 255) await new Promise((resolve) => setImmediate(resolve));
    }
    await provider.forceFlush();
  };
  await run(5_000);
  const before = process.cpuUsage();
  await run(deliveries);
  const used = process.cpuUsage(before);
  await provider.shutdown();
  return (used.user + used.system) / deliveries;
}

console.log(`Span cost, ${new Date().toISOString()}, ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, Node ${process.version}`);
console.log(`${deliveries} deliveries (two spans each) per run, ${rounds} rounds; CPU per delivery in µs`);
const results = Object.fromEntries(modes.map((mode) => [mode, []]));
for (let round = 0; round < rounds; round++) for (const mode of modes) results[mode].push(await measure(mode));
for (const mode of modes) {
  const values = results[mode].map((value) => value.toFixed(1));
  console.log(`${mode.padEnd(12)} ${values.join(', ')}`);
}
