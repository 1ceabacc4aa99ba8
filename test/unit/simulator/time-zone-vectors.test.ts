import { describe, expect, it } from 'vitest';
import {
  epochDay,
  formatOffset,
  formatWithOffset,
  localEpochDayAt,
  offsetMinutesAt,
  startOfLocalDay,
  zonedTimeToEpoch,
} from '../../../lib/simulator/time-zone';
import vectorFile from '../../fixtures/time-zone-vectors.json';

const VECTORS = vectorFile.vectors;

/** `YYYY-MM-DDTHH:MM:SS` as numbers (year, month 1-12, day, hour, minute, second). */
function wallParts(local: string): [number, number, number, number, number, number] {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/.exec(local);
  if (!m) throw new Error(`bad vector ${local}`);
  return [1, 2, 3, 4, 5, 6].map((i) => Number(m[i])) as [number, number, number, number, number, number];
}

describe('simulator time-zone against the shared vectors', () => {
  it.each(VECTORS)('resolves $local in $zone ($kind) to $instant when zonedTimeToEpoch', (v) => {
    // Act
    const instant = zonedTimeToEpoch(v.zone, ...wallParts(v.local));
    // Assess
    expect(new Date(instant).toISOString().replace('.000Z', 'Z')).toBe(v.instant);
  });

  it.each(VECTORS)('writes $instant in $zone as $resolved when formatWithOffset', (v) => {
    // Prepare
    const instant = Date.parse(v.instant);
    // Act
    const text = formatWithOffset(v.zone, instant);
    // Assess
    expect(text).toBe(v.resolved);
    expect(formatOffset(offsetMinutesAt(v.zone, instant))).toBe(v.offset);
  });

  it.each(VECTORS.filter((v) => v.dayStart))(
    'starts the local day $local in $zone at $instant when startOfLocalDay',
    (v) => {
      // Prepare
      const [year, month, day] = wallParts(v.local);
      const dayNumber = epochDay(year, month, day);
      // Act
      const start = startOfLocalDay(v.zone, dayNumber);
      // Assess
      expect(new Date(start).toISOString().replace('.000Z', 'Z')).toBe(v.instant);
      // A day that exists is the day its start falls on (Apia skipped 2011-12-30 entirely).
      if (v.date === v.local.slice(0, 10)) expect(localEpochDayAt(v.zone, start)).toBe(dayNumber);
    },
  );
});
