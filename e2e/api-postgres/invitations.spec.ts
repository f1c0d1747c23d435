import pg from 'pg';
import { bearer, expect, test } from '../fixtures/api';

// Invitation links over HTTP in states the API cannot reach quickly: the spec
// moves an expiry into the past, or demotes the inviter, directly in PostgreSQL.

test('an expired invitation link is refused with the date it expired', async ({ request, tokens }) => {
  const created = await request.post('/api/v1/factories/acme/invitations', { headers: bearer(tokens.admin), data: { email: 'late@acme.test', role: 'viewer' } });
  expect(created.status()).toBe(201);
  const { invitation, url } = await created.json();
  const client = new pg.Client({ connectionString: process.env.E2E_API_POSTGRES_DATABASE_URL });
  await client.connect();
  try {
    await client.query(`UPDATE "Invitation" SET "expiresAt" = now() - interval '1 day' WHERE id = $1`, [invitation.id]);
  } finally {
    await client.end();
  }
  const page = await (await request.get(new URL(url).pathname)).text();
  expect(page).toContain('This invitation to Acme Ops expired on');
  expect(page).not.toContain('Create account and join');
  const listed = await (await request.get('/api/v1/factories/acme/invitations', { headers: bearer(tokens.admin) })).json();
  expect(listed.invitations.map((i: { id: string }) => i.id)).not.toContain(invitation.id);
});

test('an invitation is refused once its inviter is no longer an admin, and works again when they are', async ({ request, tokens }) => {
  const created = await request.post('/api/v1/factories/acme/invitations', { headers: bearer(tokens.admin), data: { email: 'orphan@acme.test', role: 'editor' } });
  expect(created.status()).toBe(201);
  const { invitation, url } = await created.json();
  const path = new URL(url).pathname;
  expect(await (await request.get(path)).text()).toContain('Join Acme Ops on Tripline');
  const client = new pg.Client({ connectionString: process.env.E2E_API_POSTGRES_DATABASE_URL });
  await client.connect();
  const membership = `"Membership" SET "role" = $2 WHERE "factoryId" = (SELECT "factoryId" FROM "Invitation" WHERE id = $1)
                      AND "userId" = (SELECT "invitedById" FROM "Invitation" WHERE id = $1)`;
  try {
    // The inviter is demoted to editor, as another admin would in Members.
    expect((await client.query(`UPDATE ${membership}`, [invitation.id, 'editor'])).rowCount).toBe(1);
    const page = await (await request.get(path)).text();
    expect(page).toContain('This invitation to Acme Ops is no longer valid: the admin who sent it is no longer an admin of Acme Ops.');
    expect(page).not.toContain('Create account and join');
  } finally {
    await client.query(`UPDATE ${membership}`, [invitation.id, 'admin']);
    await client.end();
  }
  expect(await (await request.get(path)).text()).toContain('Join Acme Ops on Tripline');
  expect((await request.delete(`/api/v1/factories/acme/invitations/${invitation.id}`, { headers: bearer(tokens.admin) })).status()).toBe(204);
});
