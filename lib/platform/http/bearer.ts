/** The token of an `Authorization: Bearer <token>` header, or null when there is none. */
export function bearerToken(headers: Headers): string | null {
  return /^Bearer\s+(\S+)\s*$/i.exec(headers.get('authorization') ?? '')?.[1] ?? null;
}
