import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../lib/simulator/clock';
import { LoginThrottle } from '../../../../lib/simulator/oauth/login-throttle';

describe('LoginThrottle', () => {
  it('asks to wait until the failure that reached the limit leaves the window', () => {
    // Prepare
    const clock = new ManualClock(0);
    const throttle = new LoginThrottle(clock, { maxFailuresPerUser: 2, windowSeconds: 600 });
    throttle.recordFailure('Admin@Example.com', 'c');
    clock.advance(100_000);
    throttle.recordFailure(' admin@example.com', 'c');
    // Act
    const atOnce = throttle.retryAfterSeconds('ADMIN@example.com', 'c');
    clock.advance(500_000);
    const whenFirstLeft = throttle.retryAfterSeconds('admin@example.com', 'c');
    // Assess
    expect(atOnce).toBe(500);
    expect(whenFirstLeft).toBe(0);
  });

  it('tracks at most maxTracked usernames and clients when guesses use ever new usernames', () => {
    // Prepare
    const throttle = new LoginThrottle(new ManualClock(0), { maxTracked: 50 });
    // Act
    for (let i = 0; i < 500; i++) throttle.recordFailure(`user-${i}-${'x'.repeat(1000)}`, 'c');
    // Assess
    expect(throttle.size).toBe(50);
  });
});
