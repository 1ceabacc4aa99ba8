import { PRESET_NAMES, type PresetFilterObject, type PresetName } from '../../spec';
import { dateOfEpochDay, localEpochDayAt, localPartsAt, zonedTimeToEpoch } from '../time-zone';

/**
 * `presetFilterObject.units` values. The spec shows only ThisQuarter with units 5; the
 * rest continue that sequence (documented choice, see lib/simulator/README.md).
 */
export const PRESET_UNITS = { day: 2, week: 3, month: 4, quarter: 5, year: 6 } as const;
type PresetUnit = keyof typeof PRESET_UNITS;

/** roundingMode 1: the period snaps to its calendar start. */
const ROUNDING_SNAP_TO_START = 1;
/** daysOfWeek bit mask with all seven days set. */
export const ALL_DAYS_OF_WEEK = 127;
/** Periods that would end "now" end this long before the request time (per the notes). */
export const CURRENT_PERIOD_LAG_MS = 15 * 60_000;

const PRESETS: Record<PresetName, { unit: PresetUnit; offset: 0 | -1 }> = {
  Today: { unit: 'day', offset: 0 },
  Yesterday: { unit: 'day', offset: -1 },
  ThisWeek: { unit: 'week', offset: 0 },
  LastWeek: { unit: 'week', offset: -1 },
  ThisMonth: { unit: 'month', offset: 0 },
  LastMonth: { unit: 'month', offset: -1 },
  ThisQuarter: { unit: 'quarter', offset: 0 },
  LastQuarter: { unit: 'quarter', offset: -1 },
  ThisYear: { unit: 'year', offset: 0 },
  LastYear: { unit: 'year', offset: -1 },
};

/** A preset resolved against a reference time in the tenant's zone: [startMs, endMs). */
interface ResolvedPreset {
  startMs: number;
  endMs: number;
  presetFilterObject: PresetFilterObject;
}

/** True when the name is one of the supported presets (exact, case-sensitive). */
export function isPresetName(name: unknown): name is PresetName {
  return typeof name === 'string' && (PRESET_NAMES as readonly string[]).includes(name);
}

/** Local calendar start (year, month, day) of the period `index` periods from the one holding `now`. */
function periodStart(unit: PresetUnit, timeZone: string, nowMs: number, index: number): number {
  const p = localPartsAt(timeZone, nowMs);
  switch (unit) {
    case 'day':
      return zonedTimeToEpoch(timeZone, p.year, p.month, p.day + index);
    case 'week': {
      // Weeks start on Monday (weekday 1).
      const monday = localEpochDayAt(timeZone, nowMs) - (p.weekday - 1) + 7 * index;
      const d = dateOfEpochDay(monday);
      return zonedTimeToEpoch(timeZone, d.year, d.month, d.day);
    }
    case 'month':
      return zonedTimeToEpoch(timeZone, p.year, p.month + index, 1);
    case 'quarter': {
      const firstMonth = Math.floor((p.month - 1) / 3) * 3 + 1;
      return zonedTimeToEpoch(timeZone, p.year, firstMonth + 3 * index, 1);
    }
    case 'year':
      return zonedTimeToEpoch(timeZone, p.year + index, 1, 1);
  }
}

/**
 * Resolves a preset in the tenant's zone. Previous periods are whole; current periods
 * end {@link CURRENT_PERIOD_LAG_MS} before `nowMs` (never before their start).
 */
export function resolvePreset(name: PresetName, timeZone: string, nowMs: number): ResolvedPreset {
  const { unit, offset } = PRESETS[name];
  const startMs = periodStart(unit, timeZone, nowMs, offset);
  const nextStart = periodStart(unit, timeZone, nowMs, offset + 1);
  const lagged = Math.floor((nowMs - CURRENT_PERIOD_LAG_MS) / 1000) * 1000;
  const endMs = offset === 0 ? Math.max(startMs, Math.min(nextStart, lagged)) : nextStart;
  return {
    startMs,
    endMs,
    presetFilterObject: {
      units: PRESET_UNITS[unit],
      offset,
      length: 1,
      roundingMode: ROUNDING_SNAP_TO_START,
      daysOfWeek: ALL_DAYS_OF_WEEK,
    },
  };
}
