import { describe, expect, it } from 'vitest';
import { parseDefinitionFiles } from '@/lib/domain/definitions/parse';
import { definitionFile } from '@/lib/domain/webhooks/definition-file';
import { formatProblem } from '@/lib/domain/definitions/schemas';

const problemsOf = (files: Record<string, string>) => parseDefinitionFiles(files).problems.map(formatProblem);

describe('definition files', () => {
  it('reads the name from the file name and the keys from the YAML', () => {
    const { definitions, problems } = parseDefinitionFiles({
      'webhooks/github-deploys.yaml': 'authMode: signature\nsignatureScheme: github\nsecretName: GITHUB_SECRET\ndeliveryIdHeader: X-Request-Id\n',
      'webhooks/cron.yaml': '# defaults to a bearer token\nsecretName: CRON_TOKEN\n',
      'webhooks/orders.yaml': 'authMode: url_token\nsecretName: ORDERS\neventTypePath: data.events.0.type\n',
      'webhooks/jobs.yaml': 'secretName: JOBS\neventTypeHeader: X-Job-Kind\n',
      'webhooks/.gitkeep': '',
    });
    expect(problems).toEqual([]);
    expect(definitions).toEqual([
      { file: 'webhooks/cron.yaml', name: 'cron', authMode: 'token', signatureScheme: null, secretName: 'CRON_TOKEN', deliveryIdHeader: null, eventTypeHeader: null, eventTypePath: null, ipAllowlist: [], customResponse: null },
      {
        file: 'webhooks/github-deploys.yaml',
        name: 'github-deploys',
        authMode: 'signature',
        signatureScheme: 'github',
        secretName: 'GITHUB_SECRET',
        deliveryIdHeader: 'x-request-id',
        eventTypeHeader: null,
        eventTypePath: null,
        ipAllowlist: [],
        customResponse: null,
      },
      { file: 'webhooks/jobs.yaml', name: 'jobs', authMode: 'token', signatureScheme: null, secretName: 'JOBS', deliveryIdHeader: null, eventTypeHeader: 'x-job-kind', eventTypePath: null, ipAllowlist: [], customResponse: null },
      { file: 'webhooks/orders.yaml', name: 'orders', authMode: 'url_token', signatureScheme: null, secretName: 'ORDERS', deliveryIdHeader: null, eventTypeHeader: null, eventTypePath: 'data.events.0.type', ipAllowlist: [], customResponse: null },
    ]);
  });

  it('reports the file, the key and the problem in words, for every file', () => {
    expect(
      problemsOf({
        'webhooks/a.yaml': 'secretName: A\nsecretname: typo\n',
        'webhooks/b.yaml': 'authMode: basic\nsecretName: B\n',
        'webhooks/c.yaml': 'authMode: signature\nsecretName: C\n',
        'webhooks/d.yaml': 'authMode: token\nsignatureScheme: github\nsecretName: "1bad"\n',
        'webhooks/e.yaml': 'secretName: [unclosed\n',
        'webhooks/f.yaml': '',
        'webhooks/g.yaml': 'secretName: A\nsecretName: B\n',
        'webhooks/h.yaml': '- a list\n',
        'webhooks/i.yaml': 'authMode: signature\nsignatureScheme: github\nsecretName: I\neventTypeHeader: X-GitHub-Event\n',
        'webhooks/j.yaml': 'secretName: J\neventTypeHeader: X-Kind\neventTypePath: type\n',
        'webhooks/k.yaml': 'secretName: K\neventTypePath: data..type\n',
        'webhooks/l.yaml': 'secretName: L\neventTypeHeader: Authorization\n',
        'webhooks/m.yaml': 'secretName: M\ncustomResponse:\n  status: 200\n  contentType: text/plain; charset=utf-8\n  body: "ok\\0"\n',
        'webhooks/n.yaml': 'secretName: "N\\uD800"\n',
      }),
    ).toEqual([
      'webhooks/a.yaml: unknown key "secretname" (allowed: authMode, signatureScheme, secretName, deliveryIdHeader, eventTypeHeader, eventTypePath, ipAllowlist, customResponse, connection)',
      'webhooks/b.yaml: authMode: Choose token, url_token or signature',
      'webhooks/c.yaml: signatureScheme: is required when authMode is signature',
      'webhooks/d.yaml: secretName: Use letters, digits and underscores, starting with a letter (for example GITHUB_WEBHOOK_SECRET)',
      'webhooks/d.yaml: signatureScheme: only applies when authMode is signature',
      expect.stringMatching(/^webhooks\/e\.yaml: not valid YAML \(line \d+, column \d+\): /),
      'webhooks/f.yaml: the file is empty: a definition needs at least secretName',
      expect.stringMatching(/^webhooks\/g\.yaml: not valid YAML \(line 2, column 1\): Map keys must be unique/),
      'webhooks/h.yaml: must be a mapping of keys to values',
      'webhooks/i.yaml: eventTypeHeader: only applies when authMode is token or url_token: a signature webhook takes its event type from its provider scheme (docs/providers.md)',
      'webhooks/j.yaml: eventTypePath: set eventTypeHeader or eventTypePath, not both',
      'webhooks/k.yaml: eventTypePath: Write keys separated by single dots, such as data.type, with no empty key',
      'webhooks/l.yaml: eventTypeHeader: "authorization" cannot be the event type header: its name suggests a credential (authorization, cookie, token, secret, signature…), and the event type is shown to every member of the factory, viewers included: choose a header that names the kind of event, such as X-Event-Type',
      'webhooks/m.yaml: customResponse.body: contains a NUL character (U+0000), which Tripline does not accept',
      'webhooks/n.yaml: secretName: contains a lone surrogate (half of a UTF-16 pair), which has no UTF-8 form',
    ]);
  });

  it('only takes webhooks/<name>.yaml with a valid webhook name', () => {
    expect(
      problemsOf({
        'README.md': '# notes',
        'webhooks/deep/x.yaml': 'secretName: A',
        'webhooks/x.yml': 'secretName: A',
        'webhooks/Bad Name.yaml': 'secretName: A',
      }),
    ).toEqual([
      'README.md: only files named webhooks/<name>.yaml are webhook definitions',
      expect.stringMatching(/^webhooks\/Bad Name\.yaml: the file name is the webhook's name: Use lowercase letters/),
      'webhooks/deep/x.yaml: only files named webhooks/<name>.yaml are webhook definitions',
      'webhooks/x.yml: a definition file\'s name ends in .yaml (not .yml)',
    ]);
  });

  it('names the file of an alias bomb or a deep nesting, where the parser would throw', () => {
    const laughs = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (const [name, before] of [['b', 'a'], ['c', 'b'], ['d', 'c'], ['e', 'd']]) laughs.push(`${name}: &${name} [${Array(9).fill(`*${before}`).join(', ')}]`);
    const files = {
      'webhooks/laughs.yaml': `secretName: S\n${laughs.join('\n')}\n`,
      'webhooks/deep.yaml': `secretName: ${'['.repeat(5000)}${']'.repeat(5000)}\n`,
      'webhooks/fine.yaml': 'secretName: S',
    };
    const { definitions, problems } = parseDefinitionFiles(files);
    expect(definitions.map((d) => d.name)).toEqual(['fine']);
    expect(problems.find((p) => p.file === 'webhooks/laughs.yaml')?.message).toBe(
      'not a definition Tripline can read: its aliases expand too far (at most 100 alias uses)',
    );
    expect(problems.filter((p) => p.file === 'webhooks/deep.yaml').length).toBeGreaterThan(0);
  });

  it('refuses more than 20 webhooks', () => {
    const files = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`webhooks/w${i}.yaml`, 'secretName: S']));
    expect(problemsOf(files)).toEqual(['webhooks/: 21 webhooks are defined, but a factory can have at most 20']);
  });

  it('writes files that read back as the same definition', () => {
    const definition = { name: 'stripe', authMode: 'signature', signatureScheme: 'stripe', secretName: 'STRIPE', deliveryIdHeader: "x-odd#'id", eventTypeHeader: null, eventTypePath: null, ipAllowlist: [] as string[], customResponse: null } as const;
    const file = definitionFile(definition);
    expect(file.path).toBe('webhooks/stripe.yaml');
    expect(file.content).toBe('authMode: signature\nsignatureScheme: stripe\nsecretName: STRIPE\ndeliveryIdHeader: x-odd#\'id\n');
    expect(parseDefinitionFiles({ [file.path]: file.content }).definitions).toEqual([{ ...definition, file: file.path }]);
    expect(definitionFile({ name: 'cron', authMode: 'token', signatureScheme: null, secretName: 'CRON', deliveryIdHeader: null, eventTypeHeader: null, eventTypePath: null, ipAllowlist: [], customResponse: null }).content).toBe(
      'authMode: token\nsecretName: CRON\n',
    );
    const typed = { name: 'jobs', authMode: 'token', signatureScheme: null, secretName: 'JOBS', deliveryIdHeader: null, eventTypeHeader: null, eventTypePath: 'data.type', ipAllowlist: [] as string[], customResponse: null } as const;
    const typedFile = definitionFile(typed);
    expect(typedFile.content).toBe('authMode: token\nsecretName: JOBS\neventTypePath: data.type\n');
    expect(parseDefinitionFiles({ [typedFile.path]: typedFile.content }).definitions).toEqual([{ ...typed, file: typedFile.path }]);
    const listed = { ...typed, name: 'partners', ipAllowlist: ['192.0.2.0/24', '2001:db8::/32'] };
    const listedFile = definitionFile(listed);
    expect(listedFile.content).toBe('authMode: token\nsecretName: JOBS\neventTypePath: data.type\nipAllowlist:\n  - 192.0.2.0/24\n  - 2001:db8::/32\n');
    expect(parseDefinitionFiles({ [listedFile.path]: listedFile.content }).definitions).toEqual([{ ...listed, file: listedFile.path }]);
  });

  it('reads an IP allowlist canonically and names a bad range by its index', () => {
    const file = (list: string) => ({ 'webhooks/partners.yaml': `secretName: S\nipAllowlist: ${list}\n` });
    expect(parseDefinitionFiles(file('["10.1.2.3/8", "2001:0db8::1"]')).definitions[0]?.ipAllowlist).toEqual(['10.0.0.0/8', '2001:db8::1']);
    expect(problemsOf(file('["10.0.0.0/8", "10.0.0.0/33"]'))).toEqual([
      'webhooks/partners.yaml: ipAllowlist.1: "10.0.0.0/33" has an invalid prefix length: an IPv4 range ends in /0 to /32',
    ]);
    expect(problemsOf(file(`[${Array.from({ length: 101 }, (_, i) => `"10.0.${i}.0/24"`).join(', ')}]`))).toEqual([
      'webhooks/partners.yaml: ipAllowlist: An allowlist holds at most 100 ranges',
    ]);
  });

  it('reads a connection with the credential by team secret name, filling in the provider’s API, and writes it back', () => {
    const text = 'authMode: signature\nsignatureScheme: github\nsecretName: APP_SECRET\nconnection:\n  provider: github_repository\n  target: octo/app\n  credentialSecretName: GITHUB_HOOKS_TOKEN\n  eventTypes: [push, issues]\n';
    const { definitions, problems } = parseDefinitionFiles({ 'webhooks/app.yaml': text });
    expect(problems).toEqual([]);
    expect(definitions[0]?.connection).toEqual({ provider: 'github_repository', target: 'octo/app', credentialSecretName: 'GITHUB_HOOKS_TOKEN', apiBaseUrl: 'https://api.github.com', eventTypes: ['push', 'issues'] });
    // Written back as it was: the default API base URL left out, the events kept.
    expect(definitionFile(definitions[0]!).content).toBe(
      'authMode: signature\nsignatureScheme: github\nsecretName: APP_SECRET\nconnection:\n  provider: github_repository\n  target: octo/app\n  credentialSecretName: GITHUB_HOOKS_TOKEN\n  eventTypes:\n    - push\n    - issues\n',
    );
    const enterprise = parseDefinitionFiles({
      'webhooks/ghes.yaml': 'authMode: signature\nsignatureScheme: github\nsecretName: S\nconnection: {provider: github_organization, target: octo, credentialSecretName: T, apiBaseUrl: "https://ghes.example.com/api/v3/"}\n',
    }).definitions[0]!;
    expect(enterprise.connection).toEqual({ provider: 'github_organization', target: 'octo', credentialSecretName: 'T', apiBaseUrl: 'https://ghes.example.com/api/v3', eventTypes: [] });
    expect(definitionFile(enterprise).content).toContain('connection:\n  provider: github_organization\n  target: octo\n  credentialSecretName: T\n  apiBaseUrl: https://ghes.example.com/api/v3\n');
  });

  it('refuses an API token in a connection, naming the key, and never repeats a token-shaped value', () => {
    const file = (connection: string) => ({ 'webhooks/app.yaml': `authMode: signature\nsignatureScheme: github\nsecretName: S\nconnection:\n${connection}` });
    const base = '  provider: github_repository\n  target: octo/app\n';
    expect(problemsOf(file(`${base}  token: ghp_abcdefghijklmnopqrstuvwxyz0123456789\n`))).toEqual([
      'webhooks/app.yaml: connection.credentialSecretName: Invalid input: expected string, received undefined',
      'webhooks/app.yaml: connection: "token": a definition file never holds the API token; keep it in a team secret and name that secret in credentialSecretName',
    ]);
    expect(problemsOf(file(`${base}  credentialSecretName: GITHUB_TOKEN\n  apiToken: x\n`))).toEqual([
      'webhooks/app.yaml: connection: "apiToken": a definition file never holds the API token; keep it in a team secret and name that secret in credentialSecretName',
    ]);
    // The token itself where the name belongs: refused, and not echoed into logs or notifications.
    const inline = problemsOf(file(`${base}  credentialSecretName: ghp_abcdefghijklmnopqrstuvwxyz0123456789\n`));
    expect(inline).toEqual([
      'webhooks/app.yaml: connection.credentialSecretName: This looks like an API token, not the name of a team secret: keep the token in a team secret (Secrets page, `tripline secret put`) and give its name',
    ]);
    expect(inline.join()).not.toContain('ghp_abc');
  });

  it('names unknown and invalid keys of a connection', () => {
    const file = (connection: string) => ({ 'webhooks/app.yaml': `authMode: signature\nsignatureScheme: github\nsecretName: S\nconnection: ${connection}\n` });
    expect(problemsOf(file('{provider: github_repository, target: octo/app, credentialSecretName: T, events: [push]}'))).toEqual([
      'webhooks/app.yaml: connection: unknown key "events" (allowed: provider, target, credentialSecretName, apiBaseUrl, eventTypes)',
    ]);
    expect(problemsOf(file('{provider: bitbucket, target: "", credentialSecretName: T, eventTypes: ["Push Events"]}'))).toEqual([
      'webhooks/app.yaml: connection.provider: Choose one of github_repository, github_organization, gitlab_project, stripe_account',
      'webhooks/app.yaml: connection.target: Enter the repository (owner/repo), the organization, the project or the Stripe account (self or acct_...)',
      'webhooks/app.yaml: connection.eventTypes.0: Use event names such as push or issues',
    ]);
    expect(problemsOf(file('octo/app'))).toEqual(['webhooks/app.yaml: connection: must be a mapping with provider, target and credentialSecretName']);
  });
});
