import 'server-only';
import { hash, verify } from '@node-rs/argon2';

// Passwords are hashed with argon2id (the library's default algorithm) using
// OWASP's recommended minimum cost: 19 MiB memory, 2 iterations.
const options = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, options);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

// Verifying against this when the email is unknown keeps the response time
// the same, so sign-in does not reveal which emails have accounts.
let dummyHash: Promise<string> | undefined;
export async function burnPasswordCheck(password: string): Promise<void> {
  dummyHash ??= hashPassword('tripline-dummy-password');
  await verifyPassword(await dummyHash, password);
}
