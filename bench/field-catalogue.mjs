// Field catalogue benchmark: `node bench/field-catalogue.mjs`.
//
// Fills one webhook's log on PostgreSQL with BENCH_ENTRIES accepted
// deliveries of a GitHub-like pull_request payload (about 2.5 KB, ~70 field
// paths, arrays of objects), then times what the field catalogue costs
// (docs/filters.md, The field catalogue): GET .../webhooks/{uid}/fields over
// HTTP against the built server, and in-process the catalogue and the filter
// editor's live count, cold (a newer delivery arrived, so the latest 500 are
// read and parsed again) and warm (cached). The ingress is untouched by the
// catalogue; its figures come from `npm run bench`.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import { ensureBuild, scratchDatabase, tsx, waitForHealthz } from './harness.mjs';

const port = Number(process.env.BENCH_PORT ?? 3796);
const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 20_000);

ensureBuild();

/** A pull_request event much like GitHub's (trimmed), varied by n. */
function payload(n) {
  const user = (login, id) => ({ login, id, type: id % 13 === 0 ? 'Bot' : 'User', site_admin: false, avatar_url: `https://avatars.example.com/u/${id}?v=4`, html_url: `https://github.example.com/${login}` });
  const repo = { id: 1296269, name: 'api', full_name: 'acme/api', private: n % 5 === 0, owner: user('acme', 9919), default_branch: 'main', topics: ['payments', 'api'], visibility: 'private' };
  return {
    action: ['opened', 'closed', 'synchronize', 'reopened', 'edited'][n % 5],
    number: n,
    pull_request: {
      id: 1_000_000 + n,
      number: n,
      state: n % 5 === 1 ? 'closed' : 'open',
      title: `Change ${n}: ${['fix', 'feat', 'chore'][n % 3]} the thing`,
      draft: n % 4 === 0,
      merged: n % 10 === 1,
      user: user(`dev${n % 17}`, 100 + (n % 17)),
      labels: [{ id: 1, name: 'bug', color: 'd73a4a' }, ...(n % 3 ? [{ id: 2, name: 'ui', color: 'a2eeef' }] : [])],
      requested_reviewers: [user(`rev${n % 5}`, 500 + (n % 5))],
      head: { ref: `feature/${n}`, sha: randomBytes(20).toString('hex'), repo },
      base: { ref: n % 6 ? 'main' : 'release', sha: randomBytes(20).toString('hex'), repo },
      created_at: new Date(Date.now() - n * 60_000).toISOString(),
      additions: n % 400,
      deletions: n % 90,
      changed_files: n % 12,
    },
    repository: repo,
    sender: user(`dev${n % 17}`, 100 + (n % 17)),
    installation: { id: 42, node_id: 'MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNDI=' },
  };
}

const { url, env, drop } = await scratchDatabase('fields', port);

let server;
try {
  const cli = (args, input) => tsx(env, ['cli/tripline.ts', ...args], input);
  cli(['setup', '--email', 'bench@example.test', '--password-stdin', '--factory', 'bench'], 'bench password 123');
  const token = cli(['token', 'create', '--email', 'bench@example.test']);
  const uid = /uid: (\S+)/.exec(cli(['webhook', 'create', '--factory', 'bench', '--name', 'prs']))[1];

  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const { rows } = await db.query('SELECT w.id, w."factoryId" FROM "Webhook" w WHERE w.uid = $1', [uid]);
  const { id: webhookId, factoryId } = rows[0];
  console.error(`[bench] inserting ${ENTRIES} accepted deliveries`);
  let size = 0;
  for (let start = 0; start < ENTRIES; start += 1000) {
    const bodies = Array.from({ length: Math.min(1000, ENTRIES - start) }, (_, i) => JSON.stringify(payload(start + i)));
    size = bodies[0].length;
    await db.query(
      `INSERT INTO "Delivery" ("id", "webhookId", "deliveryId", "identitySource", "status", "size", "receivedAt", "body")
       SELECT 'dl_bench' || lpad((s + n)::text, 8, '0'), $1, 'evt_' || (s + n), 'service_header', 'accepted', octet_length(b), now() - ((s + n) || ' seconds')::interval, b
         FROM unnest($2::text[]) WITH ORDINALITY AS t(b, n), (SELECT $3::int AS s) AS start`,
      [webhookId, bodies, start],
    );
  }
  await db.query('ANALYZE "Delivery"');
  await db.end();

  const inProcess = JSON.parse(tsx(env, ['bench/field-catalogue-inprocess.ts', url, factoryId, uid, webhookId]).split('\n').at(-1));

  server = spawn(process.execPath, ['scripts/serve.mjs'], { env: { ...process.env, ...env, PORT: String(port) }, stdio: 'ignore' });
  await waitForHealthz(`http://localhost:${port}`, 200);
  const samples = [];
  for (let i = 0; i < 12; i++) {
    const t0 = performance.now();
    const response = await fetch(`http://localhost:${port}/api/v1/factories/bench/webhooks/${uid}/fields`, { headers: { Authorization: `Bearer ${token}` } });
    const body = await response.json();
    if (response.status !== 200) throw new Error(JSON.stringify(body));
    samples.push(performance.now() - t0);
  }
  const first = samples[0];
  const warm = samples.slice(2).sort((a, b) => a - b);

  console.log(`\nField catalogue benchmark, ${new Date().toISOString()}, ${os.cpus().length} × ${os.cpus()[0]?.model}, PostgreSQL, ${ENTRIES} accepted deliveries of ${size} bytes in one webhook's log`);
  console.log(`sample: ${inProcess.sampled} deliveries, ${inProcess.paths} paths`);
  console.log('what | median ms | worst ms');
  console.log(`GET .../fields over HTTP, first call (cold, server just started) | ${first.toFixed(1)} | ${first.toFixed(1)}`);
  console.log(`GET .../fields over HTTP, cached | ${warm[Math.floor(warm.length / 2)].toFixed(1)} | ${warm.at(-1).toFixed(1)}`);
  for (const r of inProcess.results) console.log(`${r.label} | ${r.medianMs} | ${r.worstMs}`);
} finally {
  server?.kill('SIGTERM');
  if (server) await new Promise((r) => server.once('exit', r));
  await drop();
}
