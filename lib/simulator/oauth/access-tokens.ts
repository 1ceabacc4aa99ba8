import { type CryptoKey, exportJWK, generateKeyPair, type JWK, jwtVerify, SignJWT } from 'jose';
import type { Clock } from '../clock';
import { randomOpaqueToken } from './opaque-tokens';
import type { AccessTokenClaims } from './types';

const ALGORITHM = 'ES256';
// RFC 9068 media type of JWT access tokens, so an ID token can never pass as one.
const TOKEN_TYPE = 'at+jwt';
// Private claim: the fault "expire every issued token" bumps the generation.
const GENERATION_CLAIM = 'gen';
// Private claim: the token's number, so a tenant's tokens issued so far can be expired.
const SERIAL_CLAIM = 'sn';

interface AccessTokenSubject {
  subject: string;
  clientId: string;
  tenantId: string;
  scope: string;
}

interface AccessTokenIssuerOptions {
  issuer: string;
  clock: Clock;
  ttlSeconds: number;
}

/**
 * Signs and verifies the JWT access tokens with an ES256 key pair made at start (tokens do
 * not survive a restart, as with a real server that rotated its key).
 */
export class AccessTokenIssuer {
  readonly #issuer: string;
  readonly #audience: string;
  readonly #clock: Clock;
  readonly #ttlSeconds: number;
  readonly #privateKey: CryptoKey;
  readonly #publicKey: CryptoKey;
  readonly #keyId: string;
  #generation = 0;
  /** Tokens signed so far: each carries its number, so a tenant's can be expired up to one. */
  #issued = 0;
  /** Per tenant, the number of the last token expired by {@link expireIssuedToTenant}. */
  readonly #tenantCutoffs = new Map<string, number>();

  private constructor(
    options: AccessTokenIssuerOptions,
    keys: { privateKey: CryptoKey; publicKey: CryptoKey },
  ) {
    this.#issuer = options.issuer;
    this.#audience = accessTokenAudience(options.issuer);
    this.#clock = options.clock;
    this.#ttlSeconds = options.ttlSeconds;
    this.#privateKey = keys.privateKey;
    this.#publicKey = keys.publicKey;
    this.#keyId = randomOpaqueToken(8);
  }

  static async create(options: AccessTokenIssuerOptions): Promise<AccessTokenIssuer> {
    const keys = await generateKeyPair(ALGORITHM);
    return new AccessTokenIssuer(options, keys);
  }

  get ttlSeconds(): number {
    return this.#ttlSeconds;
  }

  /** A signed access token for the subject, valid for the TTL from the injected clock's now. */
  async issue(subject: AccessTokenSubject): Promise<string> {
    const issuedAt = Math.floor(this.#clock.now() / 1000);
    return new SignJWT({
      client_id: subject.clientId,
      tenant_id: subject.tenantId,
      scope: subject.scope,
      [GENERATION_CLAIM]: this.#generation,
      [SERIAL_CLAIM]: ++this.#issued,
    })
      .setProtectedHeader({ alg: ALGORITHM, typ: TOKEN_TYPE, kid: this.#keyId })
      .setIssuer(this.#issuer)
      .setAudience(this.#audience)
      .setSubject(subject.subject)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + this.#ttlSeconds)
      .setJti(randomOpaqueToken(16))
      .sign(this.#privateKey);
  }

  /** The claims of a valid token; null for a bad signature, issuer, audience, type, expiry or generation. */
  async verify(token: string): Promise<AccessTokenClaims | null> {
    try {
      const { payload } = await jwtVerify(token, this.#publicKey, {
        algorithms: [ALGORITHM],
        typ: TOKEN_TYPE,
        issuer: this.#issuer,
        audience: this.#audience,
        // Expiry follows the injected clock so tests can move time instead of waiting.
        currentDate: new Date(this.#clock.now()),
        requiredClaims: ['exp', 'sub', 'client_id', 'tenant_id', 'scope', GENERATION_CLAIM, SERIAL_CLAIM],
      });
      const { sub, exp, client_id: clientId, tenant_id: tenantId, scope } = payload;
      const generation = payload[GENERATION_CLAIM];
      const serial = payload[SERIAL_CLAIM];
      if (
        typeof sub !== 'string' ||
        typeof exp !== 'number' ||
        typeof clientId !== 'string' ||
        typeof tenantId !== 'string' ||
        typeof scope !== 'string' ||
        generation !== this.#generation ||
        typeof serial !== 'number' ||
        serial <= (this.#tenantCutoffs.get(tenantId) ?? 0)
      ) {
        return null;
      }
      return { sub, clientId, tenantId, scope, exp };
    } catch {
      // Every jose failure means the same to the API: not a valid token (401).
      return null;
    }
  }

  /** Every token issued so far fails verification from now on; new ones work. */
  expireIssued(): void {
    this.#generation += 1;
  }

  /** The tenant's tokens issued so far fail verification from now on; new ones work. */
  expireIssuedToTenant(tenantId: string): void {
    this.#tenantCutoffs.set(tenantId, this.#issued);
  }

  /** The public key as a JWK set (for the discovery document). */
  async jwks(): Promise<{ keys: JWK[] }> {
    const jwk = await exportJWK(this.#publicKey);
    return { keys: [{ ...jwk, kid: this.#keyId, alg: ALGORITHM, use: 'sig' }] };
  }
}

/** The `aud` of access tokens: the API resources of this issuer (as IdentityServer names it). */
function accessTokenAudience(issuer: string): string {
  return `${issuer.replace(/\/+$/, '')}/resources`;
}
