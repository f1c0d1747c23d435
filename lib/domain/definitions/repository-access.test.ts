import { describe, expect, it } from 'vitest';
import { checkRepositoryAccess, OPERATOR_ACCESS, type Lookup } from '@/lib/domain/definitions/repository-access';
import { forbiddenAddressReason, numericHostAddress } from '@/lib/platform/http/forbidden-address';
import { parseRepositoryUrl, repositoryOrigin } from '@/lib/domain/definitions/repository-url';
import { parseEnv, type RepositoryAccess } from '@/lib/platform/env';

// The rules that decide what a dashboard or API user may have the server
// fetch (docs/security.md, "Repository URLs"). Table-driven: every accepted
// form, every refused form, every forbidden address range.

const DEFAULT: RepositoryAccess = { http: false, git: false, file: false, private: false };
const PUBLIC = '140.82.112.3';

/** A resolver that answers from a table, so no test depends on the network. */
const table =
  (entries: Record<string, string[]>): Lookup =>
  async (host) => {
    const found = entries[host];
    if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return found;
  };

const lookup = table({
  'github.com': [PUBLIC],
  'git.example.com': [PUBLIC, '2606:50c0:8000::154'],
  'rebind.example.com': [PUBLIC, '127.0.0.1'],
  'internal.example.com': ['10.0.0.5'],
  'v6private.example.com': ['fd00::1'],
  'mapped.example.com': ['::ffff:169.254.169.254'],
  localhost: ['127.0.0.1', '::1'],
});

describe('repository URL syntax', () => {
  it.each([
    ['https://github.com/acme/defs.git', 'https', 'github.com', 443, 'https://github.com/acme/defs.git'],
    ['HTTPS://GitHub.com/acme/defs.git', 'https', 'github.com', 443, 'https://github.com/acme/defs.git'],
    ['https://git.example.com:8443/defs.git', 'https', 'git.example.com', 8443, 'https://git.example.com:8443/defs.git'],
    ['http://git.example.com/defs.git', 'http', 'git.example.com', 80, 'http://git.example.com/defs.git'],
    ['ssh://git@github.com/acme/defs.git', 'ssh', 'github.com', 22, 'ssh://git@github.com/acme/defs.git'],
    ['ssh://git@[2001:4860::8888]:2222/defs.git', 'ssh', '2001:4860::8888', 2222, 'ssh://git@[2001:4860::8888]:2222/defs.git'],
    ['git@github.com:acme/defs.git', 'ssh', 'github.com', 22, 'git@github.com:acme/defs.git'],
    ['git://git.example.com/defs.git', 'git', 'git.example.com', 9418, 'git://git.example.com/defs.git'],
    ['file:///srv/git/defs.git', 'file', null, null, 'file:///srv/git/defs.git'],
    ['/srv/git/defs.git', 'file', null, null, '/srv/git/defs.git'],
  ])('%s is %s to %s:%s, stored as %s', (input, scheme, host, port, url) => {
    expect(parseRepositoryUrl(input)).toMatchObject({ scheme, host, port, url, credential: null });
  });

  it('takes the credential out of an https URL', () => {
    expect(parseRepositoryUrl('https://deploy:t%40ken@git.example.com/defs.git')).toMatchObject({
      url: 'https://git.example.com/defs.git',
      credential: { username: 'deploy', password: 't@ken' },
    });
    expect(parseRepositoryUrl('https://ghp_token123@github.com/acme/defs.git')).toMatchObject({
      url: 'https://github.com/acme/defs.git',
      credential: { username: 'ghp_token123', password: '' },
    });
    // The origin a stored credential belongs to ignores the credential and the path.
    expect(repositoryOrigin(parseRepositoryUrl('https://a:b@github.com/x.git'))).toBe(repositoryOrigin(parseRepositoryUrl('https://github.com/y.git')));
    expect(repositoryOrigin(parseRepositoryUrl('https://github.com:444/x.git'))).not.toBe(repositoryOrigin(parseRepositoryUrl('https://github.com/x.git')));
  });

  it.each([
    ['--upload-pack=touch /tmp/pwned', /cannot start with "-"/],
    ['-oProxyCommand=x', /cannot start with "-"/],
    ['ext::sh -c touch% /tmp/pwned', /spaces|transport/],
    ['ext::sh', /transport/],
    ['fd::17', /transport/],
    ['https://github.com/acme/defs.git --upload-pack=x', /spaces/],
    ['https://github.com/acme/\ndefs.git', /spaces/],
    ['ftp://git.example.com/defs.git', /not a repository URL/],
    ['git+ssh://git@github.com/x.git', /not a repository URL/],
    ['https://github.com', /path/],
    ['https://git%2eexample.com/x.git', /host name/],
    ['https://github.com:99999/x.git', /port/],
    ['https://github.com/-x/y.git', /cannot start with "-"/],
    ['ssh://git:password@github.com/x.git', /user name only/],
    ['git://user@git.example.com/x.git', /cannot carry/],
    ['file://otherhost/srv/x.git', /folder on the server/],
    ['git@github.com:-x.git', /cannot start with "-"/],
    ['github.com:acme/defs.git', /Enter an https/],
    ['relative/path', /Enter an https/],
    ['/srv/../etc', /\.\./],
    ['https://github.com/x.git#frag', /#/],
  ])('refuses %j', (input, message) => {
    expect(() => parseRepositoryUrl(input)).toThrow(message);
  });
});

describe('forbidden addresses', () => {
  it.each([
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'shared (CGNAT)'],
    ['100.127.255.255', 'shared (CGNAT)'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['169.254.1.1', 'link-local (cloud metadata)'],
    ['192.0.0.192', 'IETF protocol assignments'],
    ['198.18.0.1', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved or broadcast'],
    ['255.255.255.255', 'reserved or broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::ffff:169.254.169.254', 'IPv4-mapped link-local (cloud metadata)'],
    ['::127.0.0.1', 'IPv4-mapped loopback'],
    ['64:ff9b::a00:1', 'NAT64 private'],
    ['2002:7f00:1::', '6to4 loopback'],
    ['fc00::1', 'unique-local (includes fd00:ec2::254, cloud metadata)'],
    ['fd00:ec2::254', 'unique-local (includes fd00:ec2::254, cloud metadata)'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['2001:0:4136:e378::1', 'Teredo'],
    ['100::1', 'discard'],
    ['fe80::1%eth0', 'not an address'],
    ['localhost', 'not an address'],
  ])('%s is forbidden (%s)', (address, reason) => {
    expect(forbiddenAddressReason(address)).toBe(reason);
  });

  it.each(['140.82.112.3', '8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '169.255.0.1', '2606:50c0:8000::154', '2001:4860:4860::8888', '::ffff:8.8.8.8', '64:ff9b::808:808'])(
    '%s is public',
    (address) => {
      expect(forbiddenAddressReason(address)).toBeNull();
    },
  );

  it.each([
    ['2130706433', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['017700000001', '127.0.0.1'],
    ['134744072', '8.8.8.8'],
    ['1.2.3.04', '1.2.3.4'],
  ])('the numeric host %s is read as %s', (host, address) => {
    expect(numericHostAddress(host)).toBe(address);
  });

  it.each(['github.com', '1.2.3.4', '10.0.0.1', 'a1', 'host-0x1.example.com'])('%s is not a numeric spelling', (host) => {
    expect(numericHostAddress(host)).toBeNull();
  });
});

describe('who may fetch what', () => {
  const refused = (url: string, access: RepositoryAccess = DEFAULT) => checkRepositoryAccess(url, access, lookup);

  it('allows https, ssh and scp-like URLs to public hosts, and returns the addresses git must use', async () => {
    await expect(refused('https://github.com/acme/defs.git')).resolves.toMatchObject({ addresses: [PUBLIC] });
    await expect(refused('ssh://git@github.com/acme/defs.git')).resolves.toMatchObject({ addresses: [PUBLIC] });
    await expect(refused('git@github.com:acme/defs.git')).resolves.toMatchObject({ addresses: [PUBLIC] });
    await expect(refused(`https://${PUBLIC}/defs.git`)).resolves.toMatchObject({ addresses: [PUBLIC] });
    await expect(refused('https://git.example.com/defs.git')).resolves.toMatchObject({ addresses: [PUBLIC, '2606:50c0:8000::154'] });
  });

  it.each([
    'http://github.com/acme/defs.git',
    'HTTP://github.com/acme/defs.git',
    'git://github.com/acme/defs.git',
    'file:///srv/git/defs.git',
    '/srv/git/defs.git',
    'ext::sh -c id',
    '--upload-pack=id',
  ])('refuses %j: scheme not allowed', async (url) => {
    await expect(refused(url)).rejects.toMatchObject({ category: 'scheme', message: expect.stringMatching(/^Refused: /) });
  });

  it.each([
    'https://127.0.0.1/x.git',
    'https://127.0.0.1:5432/x.git',
    'https://localhost/x.git',
    'https://localhost./x.git',
    'https://[::1]/x.git',
    'https://[::ffff:127.0.0.1]/x.git',
    'https://[::ffff:7f00:1]/x.git',
    'https://[fd00:ec2::254]/x.git',
    'https://[fe80::1]/x.git',
    'https://169.254.169.254/latest/meta-data',
    'https://10.0.0.1/x.git',
    'https://100.64.1.1/x.git',
    'https://0.0.0.0/x.git',
    'https://2130706433/x.git',
    'https://0x7f.1/x.git',
    'https://0177.0.0.1/x.git',
    'https://127.1/x.git',
    'https://internal.example.com/x.git',
    'https://v6private.example.com/x.git',
    'https://mapped.example.com/x.git',
    // One forbidden answer among public ones refuses the host (the resolver may hand git any of them).
    'https://rebind.example.com/x.git',
    'ssh://git@localhost/x.git',
    'git@127.0.0.1:x.git',
    'git@[::1]:x.git',
  ])('refuses %j: private address', async (url) => {
    await expect(refused(url)).rejects.toMatchObject({ category: 'private', message: expect.stringMatching(/^Refused: private address/) });
  });

  it('resolves localhost with the system resolver too', async () => {
    await expect(checkRepositoryAccess('https://localhost:5432/x.git', DEFAULT)).rejects.toMatchObject({ category: 'private' });
  });

  it('asks for a public numeric spelling to be written as an address', async () => {
    await expect(refused('https://134744072/x.git')).rejects.toMatchObject({ category: 'scheme', message: 'Refused: write the address as 8.8.8.8' });
  });

  it('says a host that does not resolve cannot be reached', async () => {
    await expect(refused('https://nowhere.example.com/x.git')).rejects.toMatchObject({ category: 'connect' });
  });

  it('lets the operator allow each kind, and the CLI everything', async () => {
    await expect(refused('http://github.com/x.git', { ...DEFAULT, http: true })).resolves.toBeTruthy();
    await expect(refused('git://github.com/x.git', { ...DEFAULT, git: true })).resolves.toBeTruthy();
    await expect(refused('/srv/git/defs.git', { ...DEFAULT, file: true })).resolves.toMatchObject({ addresses: [] });
    await expect(refused('https://localhost/x.git', { ...DEFAULT, private: true })).resolves.toMatchObject({ addresses: ['127.0.0.1', '::1'] });
    await expect(refused('http://127.0.0.1:5432/x.git', { ...DEFAULT, http: true })).rejects.toMatchObject({ category: 'private' });
    await expect(refused('http://127.0.0.1:5432/x.git', OPERATOR_ACCESS)).resolves.toBeTruthy();
    // Never, even for the operator: options and command transports.
    await expect(refused('ext::sh -c id', OPERATOR_ACCESS)).rejects.toMatchObject({ category: 'scheme' });
    await expect(refused('--upload-pack=id', OPERATOR_ACCESS)).rejects.toMatchObject({ category: 'scheme' });
  });
});

describe('TRIPLINE_REPOSITORY_ALLOW', () => {
  const parse = (vars: Record<string, string>) => parseEnv(vars as NodeJS.ProcessEnv);
  it('is a comma-separated list of http, git, file and private', () => {
    expect(parse({}).repositoryAccess).toEqual(DEFAULT);
    expect(parse({ TRIPLINE_REPOSITORY_ALLOW: '' }).repositoryAccess).toEqual(DEFAULT);
    expect(parse({ TRIPLINE_REPOSITORY_ALLOW: 'http, FILE,private' }).repositoryAccess).toEqual({ http: true, git: false, file: true, private: true });
    expect(() => parse({ TRIPLINE_REPOSITORY_ALLOW: 'http,ext' })).toThrow(/TRIPLINE_REPOSITORY_ALLOW: must be a comma-separated list of http, git, file, private/);
  });
});
