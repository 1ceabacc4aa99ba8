import { createHash } from 'node:crypto';
import type { PkceChallenge } from './authorize-request';
import { secretsEqual } from './opaque-tokens';

// RFC 7636 4.1: 43 to 128 characters of the unreserved set.
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/** The S256 challenge of a verifier: BASE64URL(SHA256(ASCII(verifier))). */
export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** True when `verifier` is well formed and matches the challenge of the authorization request. */
export function verifyPkce(challenge: PkceChallenge, verifier: string): boolean {
  if (!VERIFIER.test(verifier)) {
    return false;
  }
  const derived = challenge.method === 'S256' ? s256Challenge(verifier) : verifier;
  return secretsEqual(derived, challenge.value);
}
