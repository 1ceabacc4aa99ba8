import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../lib/simulator/clock';
import { type RefreshGrant, RefreshTokenStore } from '../../../../lib/simulator/oauth/refresh-store';

const DAY_MS = 24 * 60 * 60 * 1000;
const IDLE_SECONDS = 90 * 24 * 60 * 60;
const GRANT: RefreshGrant = {
  clientId: 'app',
  subject: 'user-1',
  tenantId: 'tenant-1',
  scope: 'openid offline_access',
};

function setup(rotate: boolean): { clock: ManualClock; store: RefreshTokenStore; token: string } {
  const clock = new ManualClock(0);
  const store = new RefreshTokenStore({ clock, idleSeconds: IDLE_SECONDS, rotate });
  return { clock, store, token: store.issue(GRANT).token };
}

describe('RefreshTokenStore', () => {
  it('accepts the same token again and again when rotation is off', () => {
    // Prepare
    const { store, token } = setup(false);

    // Act
    const first = store.use(token, 'app');
    const second = store.use(token, 'app');

    // Assess
    expect(first).toEqual({ kind: 'accepted', token, grant: GRANT });
    expect(second).toEqual({ kind: 'accepted', token, grant: GRANT });
  });

  it.each([
    [89 * DAY_MS, 'accepted'],
    [90 * DAY_MS - 1, 'accepted'],
    [90 * DAY_MS, 'rejected'],
    [90 * DAY_MS + 1000, 'rejected'],
  ])('answers %s ms of idleness with %s', (idleMs, kind) => {
    // Prepare
    const { clock, store, token } = setup(false);
    clock.advance(idleMs);

    // Act
    const use = store.use(token, 'app');

    // Assess
    expect(use.kind).toBe(kind);
  });

  it('restarts the idle period when the token is used', () => {
    // Prepare
    const { clock, store, token } = setup(false);
    clock.advance(89 * DAY_MS);
    store.use(token, 'app');
    clock.advance(89 * DAY_MS);

    // Act
    const use = store.use(token, 'app');

    // Assess
    expect(use.kind).toBe('accepted');
  });

  it('answers idle-expired when the token expired without use', () => {
    // Prepare
    const { clock, store, token } = setup(false);
    clock.advance(91 * DAY_MS);

    // Act
    const use = store.use(token, 'app');

    // Assess
    expect(use).toEqual({ kind: 'rejected', reason: 'idle-expired' });
  });

  it('rejects without harm when another client presents the token', () => {
    // Prepare
    const { store, token } = setup(true);

    // Act
    const stolen = store.use(token, 'other');

    // Assess
    expect(stolen).toEqual({ kind: 'rejected', reason: 'wrong-client' });
    expect(store.use(token, 'app').kind).toBe('accepted');
  });

  it('hands out a new token of the same lineage when rotation is on', () => {
    // Prepare
    const { store, token } = setup(true);

    // Act
    const use = store.use(token, 'app');

    // Assess
    expect(use.kind).toBe('accepted');
    expect(use.kind === 'accepted' && use.token).not.toBe(token);
  });

  it('revokes the whole family when a used token is replayed in rotation mode', () => {
    // Prepare
    const { store, token } = setup(true);
    const rotated = store.use(token, 'app');
    const newest = rotated.kind === 'accepted' ? rotated.token : '';

    // Act
    const replay = store.use(token, 'app');

    // Assess
    expect(replay).toEqual({ kind: 'rejected', reason: 'reused' });
    expect(store.use(newest, 'app').kind).toBe('rejected');
    expect(store.peek(newest)).toBeUndefined();
  });

  it('leaves other families alone when one family is revoked', () => {
    // Prepare
    const { store } = setup(true);
    const a = store.issue(GRANT);
    const b = store.issue(GRANT);

    // Act
    store.revokeFamily(a.familyId);

    // Assess
    expect(store.use(a.token, 'app').kind).toBe('rejected');
    expect(store.use(b.token, 'app').kind).toBe('accepted');
  });

  it('starts the idle period of a rotated token at its issue when rotation is on', () => {
    // Prepare
    const { clock, store, token } = setup(true);
    clock.advance(80 * DAY_MS);
    const rotated = store.use(token, 'app');
    clock.advance(80 * DAY_MS);

    // Act
    const use = store.use(rotated.kind === 'accepted' ? rotated.token : '', 'app');

    // Assess
    expect(use.kind).toBe('accepted');
  });
});
