// The fill half of bench/many-teams.mjs, run by it under `node --conditions=react-server --import tsx`:
// FACTORIES factories of one owner (the instance admin), each with WEBHOOKS bearer-token webhooks and
// AUTOMATIONS automations whose one trigger selects one of its webhooks (with a payload filter), all
// through the application's own services, as the dashboard and the API create them. Writes the
// ingress targets (path and Authorization of every webhook) to TARGETS as JSON.
// Arguments: <factories> <webhooks per factory> <automations per factory> <targets file>; the database is
// DATABASE_URL's, else the embedded one in TRIPLINE_DATA_DIR, as for the server.
import fs from 'node:fs';
import { createAutomation } from '@/lib/domain/automations/service';
import { createFactory } from '@/lib/domain/factories/service';
import { createUser } from '@/lib/domain/users/service';
import { createWebhook } from '@/lib/domain/webhooks/service';
import { openDatabase } from '@/lib/platform/db';
import { targetFromEnv } from '@/lib/platform/db/adapter';

const [factoriesArg, webhooksArg, automationsArg, targetsFile] = process.argv.slice(2);
const [factories, webhooks, automations] = [Number(factoriesArg), Number(webhooksArg), Number(automationsArg)];
const embedded = !process.env.DATABASE_URL;
const database = openDatabase(targetFromEnv({ databaseUrl: process.env.DATABASE_URL, dataDir: process.env.TRIPLINE_DATA_DIR! }));
const db = database.prisma;
const targets: { path: string; authorization: string }[] = [];
const started = performance.now();
try {
  const owner = await createUser({ email: 'owner@many-teams.test', password: 'many teams password 1' }, db);
  // A few factories at a time: the creations of one factory are serialised by its lock anyway.
  const CONCURRENCY = embedded ? 1 : 4;
  let next = 0;
  const fillOne = async (i: number) => {
    const factory = await createFactory(owner.id, { name: `Team ${i}`, slug: `team-${i}` }, db);
    const uids: string[] = [];
    for (let w = 0; w < webhooks; w++) {
      const created = await createWebhook(factory.id, { name: `hook-${w}`, authMode: 'token' }, db);
      uids.push(created.webhook.uid);
      targets.push({ path: new URL(created.ingressUrl).pathname, authorization: `Bearer ${created.secret}` });
    }
    for (let a = 0; a < automations; a++) {
      await createAutomation(
        factory.id,
        {
          name: `automation ${a}`,
          prompt: 'Summarise the event.',
          triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [uids[a % uids.length]!], payload: { event: 'never-sent' } } }],
        },
        db,
      );
    }
  };
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < factories) {
        const i = next++;
        await fillOne(i);
        if ((i + 1) % 100 === 0) process.stderr.write(`  ${i + 1} factories in ${Math.round((performance.now() - started) / 1000)} s\n`);
      }
    }),
  );
  fs.writeFileSync(targetsFile!, JSON.stringify(targets));
  console.log(JSON.stringify({ factories, webhooks: targets.length, automations: factories * automations, seconds: Math.round((performance.now() - started) / 1000) }));
} finally {
  await database.close();
}
