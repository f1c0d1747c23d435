import pg from 'pg';
import { bearer, expect, test } from '../fixtures/api';

// An expired invitation, over HTTP: the database's clock decides, so the
// spec moves the invitation's expiry into the past directly in PostgreSQL.

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
