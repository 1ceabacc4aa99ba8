import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../lib/simulator/clock';
import { AuthorizationCodeStore, type CodeGrant } from '../../../../lib/simulator/oauth/code-store';

const GRANT: CodeGrant = {
  clientId: 'app',
  redirectUri: 'http://127.0.0.1:8000/',
  subject: 'user-1',
  tenantId: 'tenant-1',
  scope: 'openid offline_access',
  codeChallenge: undefined,
};

describe('AuthorizationCodeStore', () => {
  it('redeems a code once with its grant when it is fresh', () => {
    // Prepare
    const store = new AuthorizationCodeStore(new ManualClock(0), 60);
    const code = store.issue(GRANT);

    // Act
    const redemption = store.redeem(code);

    // Assess
    expect(redemption).toEqual({ kind: 'redeemed', grant: GRANT });
  });

  it('reports reuse with the linked refresh families when a code is presented again', () => {
    // Prepare
    const store = new AuthorizationCodeStore(new ManualClock(0), 60);
    const code = store.issue(GRANT);
    store.redeem(code);
    store.linkRefreshFamily(code, 'family-1');

    // Act
    const redemption = store.redeem(code);

    // Assess
    expect(redemption).toEqual({ kind: 'reused', grant: GRANT, refreshFamilyIds: ['family-1'] });
  });

  it.each([
    [59_999, 'redeemed'],
    [60_000, 'unknown'],
  ])('answers %s ms after issue with %s', (elapsedMs, kind) => {
    // Prepare
    const clock = new ManualClock(0);
    const store = new AuthorizationCodeStore(clock, 60);
    const code = store.issue(GRANT);
    clock.advance(elapsedMs);

    // Act
    const redemption = store.redeem(code);

    // Assess
    expect(redemption.kind).toBe(kind);
  });

  it('answers unknown when the code was never issued', () => {
    // Act
    const redemption = new AuthorizationCodeStore(new ManualClock(0), 60).redeem('nope');

    // Assess
    expect(redemption).toEqual({ kind: 'unknown' });
  });

  it('issues distinct codes and drops expired ones when new codes are issued', () => {
    // Prepare
    const clock = new ManualClock(0);
    const store = new AuthorizationCodeStore(clock, 60);
    const first = store.issue(GRANT);
    clock.advance(61_000);

    // Act
    const second = store.issue(GRANT);

    // Assess
    expect(second).not.toBe(first);
    expect(store.size).toBe(1);
  });
});
