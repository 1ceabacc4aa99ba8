import { describe, expect, it } from 'vitest';
import { partialDayWarning, refuseFutureDates } from '../../../../lib/cli/shared/future-dates';
import { UsageError } from '../../../../lib/command-line/options';

/** 23:30 UTC on 24 November 2026: already the 25th in Auckland, still the 24th in London. */
const NOW = new Date('2026-11-24T23:30:00Z');

describe('refuseFutureDates', () => {
  it.each([
    [{ date: '2026-11-24' }, 'Europe/London'],
    [{ from: '2026-11-01', to: '2026-11-24' }, 'Europe/London'],
    [{ date: '2026-11-25' }, 'Pacific/Auckland'],
    [{}, 'Europe/London'],
  ])('accepts %j in %s (today at the latest, in the tenant zone)', (flags, zone) => {
    expect(() => refuseFutureDates(flags, zone, NOW)).not.toThrow();
  });

  it.each([
    [
      { date: '2026-11-25' },
      '--date 2026-11-25 is after today (2026-11-24)',
      'give --date 2026-11-24 or earlier',
    ],
    [
      { from: '2026-11-01', to: '2062-11-30' },
      '--to 2062-11-30 is after today (2026-11-24)',
      'give --to 2026-11-24 or earlier',
    ],
    [
      { from: '2062-11-01', to: '2062-11-30' },
      '--to 2062-11-30 is after today',
      'give --from (and --to) 2026-11-24 or earlier',
    ],
    [
      { from: '2026-12-01' },
      '--from 2026-12-01 is after today',
      'give --from (and --to) 2026-11-24 or earlier',
    ],
  ])('refuses %j with a usage error naming the flag, today and the fix', (flags, message, fix) => {
    // Act
    const refuse = () => refuseFutureDates(flags, 'Europe/London', NOW);

    // Assess
    expect(refuse).toThrow(UsageError);
    expect(refuse).toThrow(message);
    expect(refuse).toThrow(fix);
    expect(refuse).toThrow("in the tenant's time zone Europe/London");
  });
});

describe('partialDayWarning', () => {
  it.each([
    [{ date: '2026-11-24' }, 'Europe/London', '--date 2026-11-24 is today'],
    [{ from: '2026-11-01', to: '2026-11-24' }, 'Europe/London', '--to 2026-11-24 is today'],
    [{ date: '2026-11-25' }, 'Pacific/Auckland', '--date 2026-11-25 is today'],
  ])('warns that %j in %s is a partial day with its cut-off', (flags, zone, text) => {
    // Act
    const warning = partialDayWarning(flags, zone, NOW);

    // Assess
    expect(warning).toContain(text);
    expect(warning).toContain('exported partial');
    expect(warning).toContain(NOW.toISOString());
  });

  it.each([
    [{ date: '2026-11-23' }, 'Europe/London'],
    [{ from: '2026-11-01', to: '2026-11-23' }, 'Europe/London'],
    [{ date: '2026-11-24' }, 'Pacific/Auckland'],
    [{}, 'Europe/London'],
  ])('says nothing of %j in %s (a day that has ended)', (flags, zone) => {
    expect(partialDayWarning(flags, zone, NOW)).toBeUndefined();
  });
});
