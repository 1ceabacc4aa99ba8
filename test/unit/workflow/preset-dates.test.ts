import { describe, expect, it } from 'vitest';
import { dateInZone } from '../../../lib/calendar';
import { resolvePreset } from '../../../lib/simulator/reporting/presets';
import { PRESET_NAMES } from '../../../lib/spec/types';
import { InvalidInputError } from '../../../lib/workflow/errors';
import { presetDates } from '../../../lib/workflow/preset-dates';

/** Instants around the edges presets have: midnights, the 15-minute lag, DST, week, month, year ends. */
const INSTANTS = [
  '2026-11-26T14:00:00Z',
  '2026-11-30T00:10:00Z', // a Monday, inside the first 15 minutes
  '2026-11-30T00:20:00Z',
  '2026-11-29T23:55:00Z', // a Sunday night
  '2026-03-29T00:30:00Z', // London springs forward at 01:00
  '2026-10-25T01:30:00Z', // London falls back
  '2026-01-01T00:16:00Z',
  '2026-12-31T23:59:59Z',
  '2028-02-29T12:00:00Z', // leap day
  '2026-04-01T03:00:00Z', // a quarter's first day
];
const ZONES = ['Europe/London', 'America/Santiago', 'Pacific/Auckland', 'UTC'];

describe('presetDates', () => {
  it.each(ZONES)('covers the local dates the service resolves each preset to, in %s', (zone) => {
    for (const at of INSTANTS) {
      for (const name of PRESET_NAMES) {
        // Prepare: what the service (the simulator's presets) answers at that instant.
        const service = resolvePreset(name, zone, Date.parse(at));
        const ends =
          service.endMs > service.startMs
            ? [dateInZone(service.startMs, zone), dateInZone(service.endMs - 1, zone)]
            : [];
        // Act
        let got: string[];
        try {
          const d = presetDates(name, zone, new Date(at));
          got = [d.from, d.to];
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidInputError);
          got = [];
        }
        // Assess: the same first and last date (an empty period is refused, by name).
        expect({ at, name, dates: got }).toEqual({ at, name, dates: ends });
      }
    }
  });

  it('refuses a current period that holds no time yet, naming the preset', () => {
    expect(() => presetDates('Today', 'Europe/London', new Date('2026-11-26T00:05:00Z'))).toThrow(
      /preset Today covers no time yet/,
    );
  });
});
