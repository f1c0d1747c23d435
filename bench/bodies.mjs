// Delivery bodies generated server-side (SQL over generate_series's n), shared by
// the benchmarks that fill a scratch log: bench/backtest.mjs and
// bench/backtest-load.mjs.

// Half GitHub pull_request events, half Stripe events. The pull request's
// body text (repeated md5s) sets the size: 1 to 4 KB of JSON per delivery.
export const BODY = `
  CASE WHEN n % 2 = 0 THEN jsonb_build_object(
    'action', (ARRAY['opened','closed','reopened','synchronize','labeled','edited'])[1 + (n / 2) % 6],
    'number', n,
    'pull_request', jsonb_build_object(
      'url', 'https://api.github.com/repos/acme/widgets/pulls/' || n,
      'id', 1000000 + n, 'node_id', 'PR_kwDO' || md5(n::text),
      'html_url', 'https://github.com/acme/widgets/pull/' || n,
      'diff_url', 'https://github.com/acme/widgets/pull/' || n || '.diff',
      'number', n, 'state', CASE WHEN n % 6 = 2 THEN 'closed' ELSE 'open' END, 'locked', false,
      'title', 'Change ' || left(md5((n * 3)::text), 12),
      'user', jsonb_build_object('login', 'user' || (n % 500), 'id', n % 500, 'type', CASE WHEN n % 50 = 0 THEN 'Bot' ELSE 'User' END,
                                 'avatar_url', 'https://avatars.githubusercontent.com/u/' || (n % 500) || '?v=4', 'site_admin', false),
      'body', repeat(md5(n::text), 4 + n % 80),
      'created_at', to_char(timestamp '2026-11-16' + (n || ' seconds')::interval, 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
      'draft', n % 7 = 0,
      'merged', n % 6 = 2 AND n % 4 = 0,
      'merged_by', CASE WHEN n % 6 = 2 AND n % 4 = 0 THEN jsonb_build_object('login', 'maintainer' || (n % 5), 'id', n % 5) END,
      'labels', CASE (n / 2) % 4 WHEN 0 THEN '[]'::jsonb
                           WHEN 1 THEN jsonb_build_array(jsonb_build_object('id', 1, 'name', 'bug', 'color', 'd73a4a', 'default', true))
                           WHEN 2 THEN jsonb_build_array(jsonb_build_object('id', 2, 'name', 'docs', 'color', '0075ca', 'default', true),
                                                         jsonb_build_object('id', 3, 'name', 'ui', 'color', 'a2eeef', 'default', false))
                           ELSE jsonb_build_array(jsonb_build_object('id', 4, 'name', 'security', 'color', 'ee0701', 'default', false)) END,
      'head', jsonb_build_object('ref', 'feature/' || left(md5((n * 7)::text), 8), 'sha', md5((n * 11)::text) || left(md5((n * 13)::text), 8)),
      'base', jsonb_build_object('ref', CASE WHEN n % 10 = 0 THEN 'release' ELSE 'main' END, 'sha', md5((n * 17)::text) || left(md5((n * 19)::text), 8)),
      'additions', n % 300, 'deletions', n % 120, 'changed_files', 1 + n % 30),
    'repository', jsonb_build_object('id', 42, 'name', 'widgets', 'full_name', 'acme/widgets', 'private', false,
      'html_url', 'https://github.com/acme/widgets', 'default_branch', 'main', 'owner', jsonb_build_object('login', 'acme', 'id', 1, 'type', 'Organization')),
    'sender', jsonb_build_object('login', 'user' || (n % 500), 'id', n % 500, 'type', CASE WHEN n % 50 = 0 THEN 'Bot' ELSE 'User' END))
  ELSE jsonb_build_object(
    'id', 'evt_' || md5(n::text), 'object', 'event', 'api_version', '2025-10-29', 'created', 1763000000 + n, 'livemode', n % 3 = 0,
    'type', (ARRAY['charge.succeeded','charge.refunded','invoice.paid','invoice.payment_failed','customer.created'])[1 + (n / 2) % 5],
    'pending_webhooks', 1 + n % 3,
    'request', jsonb_build_object('id', 'req_' || left(md5((n * 5)::text), 14), 'idempotency_key', md5((n * 23)::text)),
    'data', jsonb_build_object('object', jsonb_build_object(
      'id', 'ch_' || md5((n * 29)::text), 'object', 'charge', 'amount', 100 * (1 + n % 250), 'amount_refunded', 0,
      'currency', (ARRAY['usd','eur','gbp'])[1 + n % 3], 'customer', 'cus_' || left(md5((n % 9000)::text), 14),
      'description', repeat(md5((n * 31)::text), 6 + n % 70),
      'metadata', jsonb_build_object('order_id', 'ord_' || n, 'plan', (ARRAY['free','pro','team'])[1 + n % 3]),
      'paid', n % 9 <> 0, 'status', CASE WHEN n % 9 = 0 THEN 'failed' ELSE 'succeeded' END,
      'billing_details', jsonb_build_object('email', 'customer' || (n % 9000) || '@example.com', 'name', 'Customer ' || (n % 9000),
        'address', jsonb_build_object('country', (ARRAY['US','DE','FR','GB'])[1 + n % 4], 'postal_code', lpad((n % 99999)::text, 5, '0'))),
      'payment_method_details', jsonb_build_object('type', 'card', 'card', jsonb_build_object('brand', (ARRAY['visa','mastercard','amex'])[1 + n % 3],
        'last4', lpad((n % 10000)::text, 4, '0'), 'exp_month', 1 + n % 12, 'exp_year', 2027 + n % 5)))))
  END`;

// The copy as jsonbCopyOf writes it: the only strings longer than 1,000
// characters, the pull request's body and the charge's description, become [].
export const COPY = `CASE WHEN length(b #>> '{pull_request,body}') > 1000 THEN jsonb_set(b, '{pull_request,body}', '[]')
                   WHEN length(b #>> '{data,object,description}') > 1000 THEN jsonb_set(b, '{data,object,description}', '[]')
                   ELSE b END`;
