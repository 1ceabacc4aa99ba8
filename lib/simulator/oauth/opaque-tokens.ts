import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A random, URL-safe, unguessable value (codes, refresh tokens, login transactions). */
export function randomOpaqueToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Compares two secrets in constant time (hashing first so lengths do not leak either). */
export function secretsEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db);
}
