import { describe, expect, it } from 'vitest';
import { dayBefore } from '../../../lib/export';
import { localTenantId, nightlyInput } from '../../../lib/local/local-tenants';

describe('nightlyInput', () => {
  it.each([
    // 12:00 UTC on 2026-11-18: still the 18th in London and New York, already the 19th in Sydney.
    ['Europe/London', '2026-11-18T12:00:00Z', '2026-11-18T02:00:00.000Z', '2026-11-17'],
    ['America/New_York', '2026-11-18T12:00:00Z', '2026-11-18T07:00:00.000Z', '2026-11-17'],
    ['Australia/Sydney', '2026-11-18T14:00:00Z', '2026-11-18T15:00:00.000Z', '2026-11-18'],
    // 02:00 UTC on the 19th: the 19th in London, the evening of the 18th in New York.
    ['Europe/London', '2026-11-19T02:00:00Z', '2026-11-19T02:00:00.000Z', '2026-11-18'],
    ['America/New_York', '2026-11-19T02:00:00Z', '2026-11-18T07:00:00.000Z', '2026-11-17'],
    // London springs forward on 2026-03-29 at 01:00: 02:00 that day is BST (01:00Z).
    ['Europe/London', '2026-03-29T12:00:00Z', '2026-03-29T01:00:00.000Z', '2026-03-28'],
  ])(
    'sends the instant of 02:00 on the local date of now in %s (now %s)',
    (timeZone, now, scheduledTime, yesterday) => {
      // Act
      const input = nightlyInput({ id: 't', timeZone, hour: 2 }, new Date(now));

      // Assess: what the schedule sends, and the day Plan exports from it.
      expect(input).toEqual({ tenant: 't', scheduledTime });
      expect(dayBefore(input.scheduledTime, timeZone)).toBe(yesterday);
    },
  );

  it("takes the tenant's hour when it is not the default", () => {
    // Act
    const input = nightlyInput(
      { id: 'sydney', timeZone: 'Australia/Sydney', hour: 23 },
      new Date('2026-11-18T14:00:00Z'),
    );

    // Assess: 23:00 on the 19th in Sydney (UTC+11).
    expect(input.scheduledTime).toBe('2026-11-19T12:00:00.000Z');
  });
});

describe('localTenantId', () => {
  it.each([
    ['Europe/London', 'Acme UK', 'london'],
    ['America/New_York', 'Acme US', 'new-york'],
    ['Australia/Sydney', 'Acme AU', 'sydney'],
    ['America/Argentina/Buenos_Aires', 'Acme AR', 'buenos-aires'],
    ['UTC', 'Acme Global', 'utc'],
  ])('names a tenant in %s by its zone city', (timeZoneId, name, id) => {
    expect(localTenantId({ timeZoneId, name }, new Set())).toBe(id);
  });

  it('numbers a second tenant in the same zone', () => {
    // Prepare
    const taken = new Set(['london']);

    // Act
    const id = localTenantId({ timeZoneId: 'Europe/London', name: 'Other' }, taken);

    // Assess
    expect(id).toBe('london-2');
  });
});
