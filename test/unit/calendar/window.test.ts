import { describe, expect, it } from 'vitest';
import {
  dateInZone,
  datesInRange,
  datesOfWindow,
  dayBefore,
  dayWindow,
  parseCalendarDate,
  shiftDate,
  toReportPeriod,
  windowForDates,
} from '../../../lib/calendar';

/** What the calendar throws for a malformed or backward date, instant or window: the export's config code, kept. */
const CALENDAR_DATE_INVALID = expect.objectContaining({
  name: 'CalendarError',
  code: 'EXPORT_CONFIG_INVALID',
});

describe('windowForDates', () => {
  it.each([
    [
      'a winter week in London',
      '2026-01-05',
      '2026-01-11',
      'Europe/London',
      '2026-01-05T00:00:00+00:00',
      '2026-01-12T00:00:00+00:00',
    ],
    [
      'the spring-forward day in London',
      '2026-03-29',
      '2026-03-29',
      'Europe/London',
      '2026-03-29T00:00:00+00:00',
      '2026-03-30T00:00:00+01:00',
    ],
    [
      'the fall-back day in London',
      '2026-10-25',
      '2026-10-25',
      'Europe/London',
      '2026-10-25T00:00:00+01:00',
      '2026-10-26T00:00:00+00:00',
    ],
    [
      'a day west of UTC',
      '2026-07-04',
      '2026-07-04',
      'America/New_York',
      '2026-07-04T00:00:00-04:00',
      '2026-07-05T00:00:00-04:00',
    ],
    [
      'a half-hour zone',
      '2026-02-01',
      '2026-02-02',
      'Asia/Kolkata',
      '2026-02-01T00:00:00+05:30',
      '2026-02-03T00:00:00+05:30',
    ],
    [
      'the day Santiago skips midnight (it starts at 01:00 after the gap)',
      '2026-09-06',
      '2026-09-06',
      'America/Santiago',
      '2026-09-06T01:00:00-03:00',
      '2026-09-07T00:00:00-03:00',
    ],
    [
      'the day before Santiago skips midnight (it ends where the next one starts)',
      '2026-09-05',
      '2026-09-05',
      'America/Santiago',
      '2026-09-05T00:00:00-04:00',
      '2026-09-06T01:00:00-03:00',
    ],
  ])(
    'covers local midnight to midnight with each instant’s offset for %s',
    (_name, from, to, zone, start, end) => {
      // Act
      const window = windowForDates(from, to, zone);

      // Assess
      expect(window).toEqual({ from: start, to: end });
    },
  );

  it.each([
    ['from', '2026-02-30', '2026-03-01'],
    ['from', '26-01-01', '2026-03-01'],
    ['to', '2026-01-01', 'yesterday'],
  ])('names %s when it is not a calendar date', (setting, from, to) => {
    // Act / Assess
    expect(() => windowForDates(from, to, 'UTC')).toThrow(new RegExp(`^${setting} must be a calendar date`));
  });

  it('rejects a window whose last date is before its first', () => {
    // Act / Assess
    expect(() => windowForDates('2026-01-02', '2026-01-01', 'UTC')).toThrow(CALENDAR_DATE_INVALID);
  });
});

describe('dateInZone', () => {
  it('gives the zone’s calendar date of an instant when the instant is near midnight', () => {
    // Prepare: 23:30 UTC on 31 Dec is already 1 Jan in Berlin.
    const instant = Date.parse('2026-12-31T23:30:00Z');

    // Act / Assess
    expect(dateInZone(instant, 'Europe/Berlin')).toBe('2027-01-01');
    expect(dateInZone(instant, 'America/Los_Angeles')).toBe('2026-12-31');
  });
});

describe('shiftDate', () => {
  it.each([
    ['2026-03-01', -1, '2026-02-28'],
    ['2024-02-28', 1, '2024-02-29'],
    ['2026-12-31', 1, '2027-01-01'],
    ['2026-11-21', -6, '2026-11-15'],
  ])('moves %s by %i days to %s', (date, days, expected) => {
    expect(shiftDate(date, days)).toBe(expected);
  });

  it('parses a calendar date to its UTC midnight', () => {
    expect(parseCalendarDate('from', '2024-02-29')).toBe(Date.UTC(2024, 1, 29));
  });
});

describe('datesOfWindow', () => {
  it.each([
    ['a winter week in London', '2026-01-05', '2026-01-11', 'Europe/London'],
    ['the spring-forward day in London', '2026-03-29', '2026-03-29', 'Europe/London'],
    ['the days around the fall-back in London', '2026-10-24', '2026-10-26', 'Europe/London'],
    ['a day west of UTC', '2026-07-04', '2026-07-04', 'America/New_York'],
    ['the fall-back in New York', '2026-11-01', '2026-11-02', 'America/New_York'],
    ['a half-hour zone', '2026-02-01', '2026-02-02', 'Asia/Kolkata'],
    ['a quarter', '2026-01-01', '2026-03-31', 'Europe/London'],
  ])('lists exactly the dates of windowForDates for %s', (_name, from, to, zone) => {
    // Prepare
    const window = windowForDates(from, to, zone);
    const expected: string[] = [];
    for (let ms = Date.parse(`${from}T00:00:00Z`); ms <= Date.parse(`${to}T00:00:00Z`); ms += 86_400_000)
      expected.push(new Date(ms).toISOString().slice(0, 10));

    // Act
    const dates = datesOfWindow(window, zone);

    // Assess
    expect(dates).toEqual(expected);
  });

  it('lists only the skipped-midnight day when given its day window in Santiago', () => {
    // Act
    const dates = datesOfWindow(dayWindow('2026-09-06', 'America/Santiago'), 'America/Santiago');

    // Assess
    expect(dates).toEqual(['2026-09-06']);
  });

  it.each([
    [
      'a UTC day in London summer time touches two local dates',
      '2026-06-01T00:00:00Z',
      '2026-06-02T00:00:00Z',
      'Europe/London',
      ['2026-06-01', '2026-06-02'],
    ],
    [
      'the last minute of a day only covers that day',
      '2026-06-01T23:59:00+01:00',
      '2026-06-02T00:00:00+01:00',
      'Europe/London',
      ['2026-06-01'],
    ],
    [
      'half an hour across midnight covers both days',
      '2026-06-01T23:45:00+01:00',
      '2026-06-02T00:15:00+01:00',
      'Europe/London',
      ['2026-06-01', '2026-06-02'],
    ],
    [
      'the day Samoa skipped is not listed',
      '2011-12-29T00:00:00-10:00',
      '2012-01-01T00:00:00+14:00',
      'Pacific/Apia',
      ['2011-12-29', '2011-12-31'],
    ],
  ])('lists the local dates any instant falls on when %s', (_name, from, to, zone, expected) => {
    // Act
    const dates = datesOfWindow({ from, to }, zone);

    // Assess
    expect(dates).toEqual(expected);
  });

  it.each([
    ['window.from', { from: '2026-06-01T00:00:00', to: '2026-06-02T00:00:00Z' }],
    ['window.from', { from: '2026-06-01', to: '2026-06-02T00:00:00Z' }],
    ['window.to', { from: '2026-06-01T00:00:00Z', to: 'tomorrow' }],
    ['window.to', { from: '2026-06-02T00:00:00Z', to: '2026-06-01T00:00:00Z' }],
  ])('throws EXPORT_CONFIG_INVALID naming %s when the window is invalid', (setting, window) => {
    // Act
    const act = () => datesOfWindow(window, 'Europe/London');

    // Assess
    expect(act).toThrow(CALENDAR_DATE_INVALID);
    expect(act).toThrow(setting);
  });
});

describe('dayWindow', () => {
  it.each([
    ['a 23-hour spring-forward day', '2026-03-29', 'Europe/London', 23],
    ['a 25-hour fall-back day', '2026-10-25', 'Europe/London', 25],
    ['an ordinary day', '2026-06-01', 'Europe/London', 24],
    ['the day whose midnight does not exist', '2026-09-06', 'America/Santiago', 23],
    ['the fall-back day in Santiago (23:00 occurs twice)', '2026-04-04', 'America/Santiago', 25],
  ])('spans the local day from its start to the next day’s start for %s', (_name, date, zone, hours) => {
    // Act
    const window = dayWindow(date, zone);

    // Assess
    expect((Date.parse(window.to) - Date.parse(window.from)) / 3_600_000).toBe(hours);
    expect(dateInZone(Date.parse(window.from), zone)).toBe(date);
    expect(dateInZone(Date.parse(window.to) - 1, zone)).toBe(date);
    expect(dateInZone(Date.parse(window.from) - 1, zone)).toBe(shiftDate(date, -1));
  });
});

describe('datesInRange', () => {
  it('lists every date of an inclusive range across a month and a leap day', () => {
    // Act / Assess
    expect(datesInRange('2024-02-27', '2024-03-01')).toEqual([
      '2024-02-27',
      '2024-02-28',
      '2024-02-29',
      '2024-03-01',
    ]);
    expect(datesInRange('2026-06-01', '2026-06-01')).toEqual(['2026-06-01']);
  });

  it('throws EXPORT_CONFIG_INVALID when the range ends before it starts', () => {
    // Act / Assess
    expect(() => datesInRange('2026-06-02', '2026-06-01')).toThrow(CALENDAR_DATE_INVALID);
  });
});

describe('dayBefore', () => {
  it.each([
    [
      'just after local midnight in summer time, still the previous UTC day',
      '2026-06-01T23:30:00Z',
      'Europe/London',
      '2026-06-01',
    ],
    ['just before local midnight', '2026-06-01T22:30:00Z', 'Europe/London', '2026-05-31'],
    ['west of UTC, already the next UTC day', '2026-06-02T02:00:00Z', 'America/New_York', '2026-05-31'],
    ['a new year in Auckland', '2026-12-31T12:30:00Z', 'Pacific/Auckland', '2026-12-31'],
    ['an instant with its own offset', '2026-03-30T01:30:00+01:00', 'Europe/London', '2026-03-29'],
  ])('gives the local day before the scheduled time when %s', (_name, instant, zone, expected) => {
    // Act / Assess
    expect(dayBefore(instant, zone)).toBe(expected);
  });

  it('throws EXPORT_CONFIG_INVALID when the instant has no offset', () => {
    // Act / Assess
    expect(() => dayBefore('2026-06-01T03:00:00', 'Europe/London')).toThrow(CALENDAR_DATE_INVALID);
  });
});

describe('toReportPeriod', () => {
  it('gives the client’s period shape for the same instants when converting a window', () => {
    // Act / Assess
    expect(toReportPeriod(windowForDates('2026-03-29', '2026-03-29', 'Europe/London'))).toEqual({
      start: '2026-03-29T00:00:00+00:00',
      end: '2026-03-30T00:00:00+01:00',
    });
  });
});
