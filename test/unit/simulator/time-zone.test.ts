import { describe, expect, it } from 'vitest';
import { isGuid, Prng } from '../../../lib/simulator/prng';
import {
  formatUtcTimestamp,
  formatWithOffset,
  offsetMinutesAt,
  zonedTimeToEpoch,
} from '../../../lib/simulator/time-zone';

describe('time-zone', () => {
  it.each([
    ['Europe/London', Date.UTC(2026, 0, 15), 0],
    ['Europe/London', Date.UTC(2026, 6, 15), 60],
    ['America/New_York', Date.UTC(2026, 0, 15), -300],
    ['Asia/Kolkata', Date.UTC(2026, 0, 15), 330],
  ])('gives the offset of %s at %i as %i minutes', (zone, at, minutes) => {
    // Act / Assess
    expect(offsetMinutesAt(zone, at)).toBe(minutes);
  });

  it('maps a local time on both sides of the London spring change when zonedTimeToEpoch', () => {
    // Act / Assess
    expect(zonedTimeToEpoch('Europe/London', 2026, 3, 29, 0, 30)).toBe(Date.UTC(2026, 2, 29, 0, 30));
    expect(zonedTimeToEpoch('Europe/London', 2026, 3, 29, 3, 0)).toBe(Date.UTC(2026, 2, 29, 2, 0));
  });

  it('formats with the offset in force at the instant', () => {
    // Act / Assess
    expect(formatWithOffset('Asia/Kolkata', Date.UTC(2026, 0, 1))).toBe('2026-01-01T05:30:00+05:30');
  });

  it('writes 7 fractional digits when formatUtcTimestamp', () => {
    // Act / Assess
    expect(formatUtcTimestamp(Date.UTC(2026, 10, 22, 1, 2, 3, 123), 4567)).toBe(
      '2026-11-22T01:02:03.1234567Z',
    );
  });
});

describe('Prng', () => {
  it('repeats the sequence when the seed repeats', () => {
    // Prepare
    const a = new Prng(42);
    const b = new Prng(42);
    // Act / Assess
    expect([a.nextUint32(), a.next(), a.guid()]).toEqual([b.nextUint32(), b.next(), b.guid()]);
  });

  it('makes version-4 GUIDs that the GUID check accepts', () => {
    // Prepare
    const rng = new Prng(1);
    // Act
    const ids = Array.from({ length: 200 }, () => rng.guid());
    // Assess
    for (const id of ids) {
      expect(isGuid(id)).toBe(true);
      expect(id[14]).toBe('4');
      expect('89ab').toContain(id[19]);
    }
    expect(new Set(ids).size).toBe(200);
  });
});
