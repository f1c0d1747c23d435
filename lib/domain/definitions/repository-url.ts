// The syntax of a repository location, shared by the form (client), the
// actions, the API, the CLI and the sync: one parser, so every entry accepts
// exactly the same strings. Whether a parsed location may be fetched (its
// scheme and its addresses) is decided on the server, in repository-access.ts.
//
// Accepted forms (git's own, minus everything that is not a plain transport):
//   https://[user[:token]@]host[:port]/path    http://...       (credentials: http(s) only)
//   ssh://[user@]host[:port]/path              user@host:path   (scp-like; the user is required)
//   git://host[:port]/path                     file:///path     /absolute/path/on/the/server
// Never: a leading "-" (git would read an option such as --upload-pack=...),
// "<transport>::<address>" (ext:: runs commands, fd:: reads descriptors),
// whitespace or control characters, percent-encoded or odd host names.

export type RepositoryScheme = 'https' | 'http' | 'ssh' | 'git' | 'file';

export type RepositoryCredential = { username: string; password: string };

export type ParsedRepositoryUrl = {
  scheme: RepositoryScheme;
  /** `url` for scheme://..., `scp` for user@host:path, `path` for an absolute server path. */
  form: 'url' | 'scp' | 'path';
  /** Lowercased host name or IP address (IPv6 without brackets); null for file and paths. */
  host: string | null;
  /** The port git connects to (explicit or the scheme's default); null for scp-like (ssh's 22), file and paths. */
  port: number | null;
  /** Userinfo of an http(s) URL: stored encrypted, handed to git in its environment, never in a URL or an argument. */
  credential: RepositoryCredential | null;
  /** The location without credentials: what is stored, shown and given to git. */
  url: string;
};

export class RepositoryUrlError extends Error {}

const DEFAULT_PORTS: Record<string, number> = { https: 443, http: 80, ssh: 22, git: 9418 };
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/;
const IPV6_LITERAL = /^\[([0-9a-f:.]+)\]$/;
const USER = /^[A-Za-z0-9._~-]+$/;

function invalid(message: string): never {
  throw new RepositoryUrlError(message);
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return invalid('The credentials in the URL are not valid percent-encoding');
  }
}

/** `host`, `host:port`, `[v6]` or `[v6]:port`, lowercased. */
function parseHostPort(text: string, scheme: string): { host: string; port: number; literal: string } {
  const lower = text.toLowerCase();
  let hostPart = lower;
  let portPart: string | undefined;
  if (lower.startsWith('[')) {
    const end = lower.indexOf(']');
    if (end < 0) invalid('The host’s IPv6 address is missing its closing "]"');
    hostPart = lower.slice(0, end + 1);
    const rest = lower.slice(end + 1);
    if (rest !== '') {
      if (!rest.startsWith(':')) invalid('Enter the host as name[:port] or [IPv6 address][:port]');
      portPart = rest.slice(1);
    }
  } else if (lower.includes(':')) {
    [hostPart, portPart] = [lower.slice(0, lower.indexOf(':')), lower.slice(lower.indexOf(':') + 1)];
  }
  let port = DEFAULT_PORTS[scheme]!;
  if (portPart !== undefined) {
    if (!/^[0-9]{1,5}$/.test(portPart) || Number(portPart) < 1 || Number(portPart) > 65535) invalid('The port must be a number from 1 to 65535');
    port = Number(portPart);
  }
  const v6 = IPV6_LITERAL.exec(hostPart);
  if (v6) return { host: v6[1]!, port, literal: hostPart };
  if (!HOST_NAME.test(hostPart)) invalid('Enter a host name such as git.example.com (letters, digits, "-", "." only)');
  return { host: hostPart, port, literal: hostPart };
}

/** Parses a repository location or throws RepositoryUrlError with a message for the person who typed it. */
export function parseRepositoryUrl(input: string): ParsedRepositoryUrl {
  const text = input.trim();
  if (text === '') invalid('Enter the repository’s URL');
  if (text.length > 1000) invalid('Use at most 1,000 characters');
  if (text.startsWith('-')) invalid('A repository URL cannot start with "-"');
  if (/[\s\u0000-\u001f\u007f]/.test(text)) invalid('The URL must not contain spaces or control characters');
  if (/^[A-Za-z0-9+.-]+::/.test(text)) invalid('git’s "<transport>::" addresses (such as ext::) are not accepted');
  if (text.includes('#')) invalid('A repository URL cannot contain "#"');

  if (text.startsWith('/')) {
    if (text.split('/').includes('..')) invalid('The path must not contain ".."');
    return { scheme: 'file', form: 'path', host: null, port: null, credential: null, url: text };
  }

  const schemeMatch = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(text);
  if (schemeMatch) {
    const scheme = schemeMatch[1]!.toLowerCase();
    if (!['https', 'http', 'ssh', 'git', 'file'].includes(scheme)) {
      invalid(`${scheme}:// is not a repository URL Tripline reads: use https://, ssh:// or user@host:path`);
    }
    const rest = text.slice(schemeMatch[0].length);
    if (scheme === 'file') {
      // file:///path or file://localhost/path: a folder on the server.
      const slash = rest.indexOf('/');
      const authority = slash < 0 ? rest : rest.slice(0, slash);
      if (authority !== '' && authority.toLowerCase() !== 'localhost') invalid('A file:// URL names a folder on the server: file:///path');
      const filePath = slash < 0 ? '' : rest.slice(slash);
      if (filePath.length < 2 || filePath.split('/').includes('..')) invalid('Enter the folder as file:///absolute/path');
      return { scheme: 'file', form: 'url', host: null, port: null, credential: null, url: `file://${filePath}` };
    }
    const slash = rest.indexOf('/');
    if (slash < 0 || slash === rest.length - 1) invalid('Add the repository’s path after the host, such as /acme/tripline.git');
    const authority = rest.slice(0, slash);
    const repoPath = rest.slice(slash);
    if (repoPath.split('/').some((segment) => segment.startsWith('-'))) invalid('A path segment of the URL cannot start with "-"');
    const at = authority.lastIndexOf('@');
    const userinfo = at < 0 ? null : authority.slice(0, at);
    const { host, port, literal } = parseHostPort(at < 0 ? authority : authority.slice(at + 1), scheme);
    const portSuffix = port === DEFAULT_PORTS[scheme] && !/:\d+$/.test(authority) ? '' : `:${port}`;
    let credential: RepositoryCredential | null = null;
    let user = '';
    if (userinfo !== null) {
      if (scheme === 'http' || scheme === 'https') {
        const colon = userinfo.indexOf(':');
        credential = {
          username: decode(colon < 0 ? userinfo : userinfo.slice(0, colon)),
          password: colon < 0 ? '' : decode(userinfo.slice(colon + 1)),
        };
        if (credential.username === '' && credential.password === '') credential = null;
      } else if (scheme === 'ssh') {
        if (!USER.test(userinfo)) invalid('An ssh:// URL takes a user name only (no password): ssh://git@host/path');
        user = `${userinfo}@`;
      } else invalid('A git:// URL cannot carry a user name or password');
    }
    return { scheme: scheme as RepositoryScheme, form: 'url', host, port, credential, url: `${scheme}://${user}${literal}${portSuffix}${repoPath}` };
  }

  // scp-like: user@host:path (git reads it as ssh). The user is required, so a
  // relative path with a colon is never mistaken for a host.
  const scp = /^([A-Za-z0-9._~-]+)@(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):(.+)$/.exec(text);
  if (scp) {
    const [, user, hostText, repoPath] = scp;
    if (repoPath!.startsWith('-') || repoPath!.split('/').some((segment) => segment.startsWith('-'))) invalid('The path cannot start with "-"');
    const { host, literal } = parseHostPort(hostText!, 'ssh');
    return { scheme: 'ssh', form: 'scp', host, port: 22, credential: null, url: `${user}@${literal}:${repoPath}` };
  }
  return invalid('Enter an https:// or ssh:// URL, or user@host:path');
}

/** The part of a location a stored credential belongs to: scheme, host and port. */
export function repositoryOrigin(parsed: ParsedRepositoryUrl): string {
  return `${parsed.scheme}://${parsed.host ?? ''}:${parsed.port ?? ''}`;
}
