import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../lib/simulator/clock';
import { AccessTokenIssuer } from '../../../../lib/simulator/oauth/access-tokens';

const ISSUER = 'http://127.0.0.1:4000';
const SUBJECT = { subject: 'user-1', clientId: 'app', tenantId: 'tenant-1', scope: 'openid onboarding' };

async function setup(ttlSeconds = 5400): Promise<{ clock: ManualClock; issuer: AccessTokenIssuer }> {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  return { clock, issuer: await AccessTokenIssuer.create({ issuer: ISSUER, clock, ttlSeconds }) };
}

describe('AccessTokenIssuer', () => {
  it('issues an ES256 JWT with the claims the API needs when asked', async () => {
    // Prepare
    const { clock, issuer } = await setup();

    // Act
    const token = await issuer.issue(SUBJECT);

    // Assess
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    const nowSeconds = clock.now() / 1000;
    expect(decodeJwt(token)).toMatchObject({
      iss: ISSUER,
      sub: 'user-1',
      client_id: 'app',
      tenant_id: 'tenant-1',
      scope: 'openid onboarding',
      iat: nowSeconds,
      exp: nowSeconds + 5400,
    });
    await expect(issuer.verify(token)).resolves.toEqual({
      sub: 'user-1',
      clientId: 'app',
      tenantId: 'tenant-1',
      scope: 'openid onboarding',
      exp: nowSeconds + 5400,
    });
  });

  it.each([
    [5399, true],
    [5400, false],
  ])('answers verification %s s after issue with valid=%s', async (elapsedSeconds, valid) => {
    // Prepare
    const { clock, issuer } = await setup();
    const token = await issuer.issue(SUBJECT);
    clock.advance(elapsedSeconds * 1000);

    // Act
    const claims = await issuer.verify(token);

    // Assess
    expect(claims !== null).toBe(valid);
  });

  it('rejects a token when another server instance signed it', async () => {
    // Prepare
    const { issuer } = await setup();
    const { issuer: stranger } = await setup();
    const token = await stranger.issue(SUBJECT);

    // Act
    const claims = await issuer.verify(token);

    // Assess
    expect(claims).toBeNull();
  });

  it.each([
    ['garbage', () => 'not.a.jwt'],
    ['a flipped signature byte', (t: string) => `${t.slice(0, -2)}${t.endsWith('AA') ? 'BB' : 'AA'}`],
    [
      'an edited payload',
      (t: string) => {
        const [header, , signature] = t.split('.');
        const payload = Buffer.from(JSON.stringify({ ...decodeJwt(t), tenant_id: 'other' })).toString(
          'base64url',
        );
        return `${header}.${payload}.${signature}`;
      },
    ],
  ])('rejects %s', async (_label, tamper) => {
    // Prepare
    const { issuer } = await setup();
    const token = await issuer.issue(SUBJECT);

    // Act
    const claims = await issuer.verify(tamper(token));

    // Assess
    expect(claims).toBeNull();
  });

  it('rejects an unsigned token when its algorithm is none', async () => {
    // Prepare
    const { issuer } = await setup();
    const claims = decodeJwt(await issuer.issue(SUBJECT));
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url');
    const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');

    // Act
    const verified = await issuer.verify(`${header}.${payload}.`);

    // Assess
    expect(verified).toBeNull();
  });

  it('rejects an HS256 token when it is signed with a guessable secret', async () => {
    // Prepare
    const { issuer } = await setup();
    const forged = await new SignJWT(decodeJwt(await issuer.issue(SUBJECT)))
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
      .sign(new TextEncoder().encode('secret'));

    // Act
    const verified = await issuer.verify(forged);

    // Assess
    expect(verified).toBeNull();
  });

  it('rejects earlier tokens and accepts new ones when issued tokens are expired', async () => {
    // Prepare
    const { issuer } = await setup();
    const before = await issuer.issue(SUBJECT);

    // Act
    issuer.expireIssued();
    const after = await issuer.issue(SUBJECT);

    // Assess
    await expect(issuer.verify(before)).resolves.toBeNull();
    await expect(issuer.verify(after)).resolves.not.toBeNull();
  });

  it('publishes only the public key when asked for the JWKS', async () => {
    // Prepare
    const { issuer } = await setup();

    // Act
    const { keys } = await issuer.jwks();

    // Assess
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', use: 'sig' });
    expect(keys[0]).not.toHaveProperty('d');
  });
});
