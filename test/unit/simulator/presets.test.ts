import { describe, expect, it } from 'vitest';
import { PRESET_UNITS, resolvePreset } from '../../../lib/simulator/reporting/presets';
import { formatWithOffset } from '../../../lib/simulator/time-zone';
import type { PresetName } from '../../../lib/spec/types';

// Sunday 29 March 2026, 11:00 BST: London moved from GMT to BST at 01:00 UTC that morning.
const DST_SUNDAY = Date.UTC(2026, 2, 29, 10, 0, 0);
const LONDON = 'Europe/London';

describe('resolvePreset', () => {
  it.each<[PresetName, string, string, number, number]>([
    ['Today', '2026-03-29T00:00:00+00:00', '2026-03-29T10:45:00+01:00', PRESET_UNITS.day, 0],
    ['Yesterday', '2026-03-28T00:00:00+00:00', '2026-03-29T00:00:00+00:00', PRESET_UNITS.day, -1],
    ['ThisWeek', '2026-03-23T00:00:00+00:00', '2026-03-29T10:45:00+01:00', PRESET_UNITS.week, 0],
    ['LastWeek', '2026-03-16T00:00:00+00:00', '2026-03-23T00:00:00+00:00', PRESET_UNITS.week, -1],
    ['ThisMonth', '2026-03-01T00:00:00+00:00', '2026-03-29T10:45:00+01:00', PRESET_UNITS.month, 0],
    ['LastMonth', '2026-02-01T00:00:00+00:00', '2026-03-01T00:00:00+00:00', PRESET_UNITS.month, -1],
    ['ThisQuarter', '2026-01-01T00:00:00+00:00', '2026-03-29T10:45:00+01:00', 5, 0],
    ['LastQuarter', '2025-10-01T00:00:00+01:00', '2026-01-01T00:00:00+00:00', 5, -1],
    ['ThisYear', '2026-01-01T00:00:00+00:00', '2026-03-29T10:45:00+01:00', PRESET_UNITS.year, 0],
    ['LastYear', '2025-01-01T00:00:00+00:00', '2026-01-01T00:00:00+00:00', PRESET_UNITS.year, -1],
  ])('resolves %s to [%s, %s) when now is the London DST Sunday', (name, start, end, units, offset) => {
    // Act
    const resolved = resolvePreset(name, LONDON, DST_SUNDAY);
    // Assess
    expect(formatWithOffset(LONDON, resolved.startMs)).toBe(start);
    expect(formatWithOffset(LONDON, resolved.endMs)).toBe(end);
    expect(resolved.presetFilterObject).toEqual({
      units,
      offset,
      length: 1,
      roundingMode: 1,
      daysOfWeek: 127,
    });
  });

  it('ends a current period at its start when now is within 15 minutes of the start', () => {
    // Prepare
    const justAfterMidnight = Date.UTC(2026, 0, 5, 0, 5, 0);
    // Act
    const resolved = resolvePreset('Today', LONDON, justAfterMidnight);
    // Assess
    expect(resolved.endMs).toBe(resolved.startMs);
  });

  it('uses the zone of the tenant when it is not London', () => {
    // Prepare: 8 March 2026 is the US spring-forward day.
    const now = Date.UTC(2026, 2, 8, 18, 0, 0);
    // Act
    const resolved = resolvePreset('ThisMonth', 'America/New_York', now);
    // Assess
    expect(formatWithOffset('America/New_York', resolved.startMs)).toBe('2026-03-01T00:00:00-05:00');
    expect(formatWithOffset('America/New_York', resolved.endMs)).toBe('2026-03-08T13:45:00-04:00');
  });
});
