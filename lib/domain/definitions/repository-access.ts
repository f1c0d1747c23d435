import 'server-only';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { RepositoryAccess } from '@/lib/platform/env';
import { forbiddenAddressReason, numericHostAddress } from '@/lib/platform/http/forbidden-address';
import { parseRepositoryUrl, RepositoryUrlError, type ParsedRepositoryUrl } from '@/lib/domain/definitions/repository-url';

// The one check every repository fetch passes, whoever asks (a dashboard
// action, the API, the CLI, the periodic sync re-checking a stored URL):
// the scheme must be allowed, and every address the host resolves to must
// be public unless the operator allows private ones. The addresses checked
// here are the ones git connects to (repository-git.ts pins them), so a DNS
// answer that changes between the check and the connection (rebinding)
// cannot move the fetch onto another address.

/** What the person who asked is told: a fixed category, never text from the host they chose. */
export type RepositoryErrorCategory =
  | 'scheme'
  | 'private'
  | 'connect'
  | 'auth'
  | 'branch'
  | 'timeout'
  | 'too_large'
  | 'content'
  | 'no_git';

export class RepositoryError extends Error {
  constructor(
    readonly category: RepositoryErrorCategory,
    message: string,
  ) {
    super(message);
    this.name = 'RepositoryError';
  }
}

/** Everything allowed: the CLI (the operator's own tool), and URLs the operator set with it. */
export const OPERATOR_ACCESS: RepositoryAccess = { http: true, git: true, file: true, private: true };

export const refusedScheme = () =>
  new RepositoryError(
    'scheme',
    'Refused: scheme not allowed. Use an https:// or ssh:// URL, or user@host:path (the operator allows http://, git:// and server paths with TRIPLINE_REPOSITORY_ALLOW).',
  );

export const refusedPrivate = () =>
  new RepositoryError(
    'private',
    'Refused: private address. The repository’s host is a loopback, private, link-local or other non-public address (the operator allows these with TRIPLINE_REPOSITORY_ALLOW=private).',
  );

export type Lookup = (host: string) => Promise<string[]>;

const systemLookup: Lookup = async (host) => (await dnsLookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/** A location that passed the check, with the addresses git must connect to (empty for a folder on the server). */
export type CheckedRepository = { parsed: ParsedRepositoryUrl; addresses: string[] };

export function parseOrRefuse(url: string): ParsedRepositoryUrl {
  try {
    return parseRepositoryUrl(url);
  } catch (error) {
    if (error instanceof RepositoryUrlError) throw new RepositoryError('scheme', `Refused: ${error.message}`);
    throw error;
  }
}

export async function checkRepositoryAccess(url: string, access: RepositoryAccess, lookup: Lookup = systemLookup): Promise<CheckedRepository> {
  const parsed = parseOrRefuse(url);
  if (parsed.scheme === 'file') {
    if (!access.file) throw refusedScheme();
    return { parsed, addresses: [] };
  }
  if ((parsed.scheme === 'http' && !access.http) || (parsed.scheme === 'git' && !access.git)) throw refusedScheme();

  const host = parsed.host!;
  const numeric = numericHostAddress(host);
  if (numeric !== null) {
    // Never passed on: resolvers and git's URL parsing may read such a number differently.
    if (numeric === 'invalid' || forbiddenAddressReason(numeric) !== null) throw refusedPrivate();
    throw new RepositoryError('scheme', `Refused: write the address as ${numeric}`);
  }

  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await lookup(host.replace(/\.$/, ''));
    } catch {
      throw new RepositoryError('connect', 'Could not connect: the repository’s host name does not resolve.');
    }
    if (addresses.length === 0) throw new RepositoryError('connect', 'Could not connect: the repository’s host name does not resolve.');
  }
  // Any one forbidden address refuses the host: the resolver could hand git any of them.
  if (!access.private && addresses.some((address) => forbiddenAddressReason(address) !== null)) throw refusedPrivate();
  return { parsed, addresses };
}
