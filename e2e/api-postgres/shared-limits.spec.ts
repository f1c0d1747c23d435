import { expect, test } from '../fixtures/api';
import { createWebhook, deleteCreatedWebhooks } from '../fixtures/ingress';
import { servers } from '../../playwright.config';

// Two app instances on one PostgreSQL, as behind a load balancer: requests
// alternate between them and both budgets count them together.

test.afterEach(({ request, tokens }) => deleteCreatedWebhooks(request, tokens.admin));

test('the delivery rate limit is shared by two instances', async ({ request, tokens }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'shared-rate' });
  const statuses: number[] = [];
  for (let i = 0; i < 61; i++) {
    const server = i % 2 === 0 ? servers.apiPostgres : servers.apiPostgresB;
    statuses.push((await request.post(`${server}${hook.url}`, { data: { i }, headers: { Authorization: `Bearer ${hook.secret}` } })).status());
  }
  expect(statuses.slice(0, 60)).toEqual(Array(60).fill(202));
  expect(statuses[60]).toBe(429);
});

test('the failed-authentication budget is shared by two instances', async ({ request, tokens }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'shared-auth' });
  const statuses: number[] = [];
  for (let i = 0; i < 21; i++) {
    const server = i % 2 === 0 ? servers.apiPostgres : servers.apiPostgresB;
    statuses.push((await request.post(`${server}${hook.url}`, { data: { i }, headers: { Authorization: 'Bearer wrong' } })).status());
  }
  expect(statuses.slice(0, 20)).toEqual(Array(20).fill(401));
  expect(statuses[20]).toBe(429);
});
