import { describe, expect, it } from 'vitest';
import { localDate, parseLocalTime, ZoneConverter } from '../../../lib/calendar';
import vectorFile from '../../fixtures/time-zone-vectors.json';

describe('ZoneConverter', () => {
  it.each([
    { zone: 'Europe/London', local: '2026-01-15T12:00:00', utc: '2026-01-15T12:00:00.000Z' },
    { zone: 'Europe/London', local: '2026-07-15T12:00:00', utc: '2026-07-15T11:00:00.000Z' },
    // Gap: shifted forward by the gap length.
    { zone: 'Europe/London', local: '2026-03-29T01:00:00', utc: '2026-03-29T01:00:00.000Z' },
    { zone: 'Europe/London', local: '2026-03-29T01:59:59.999', utc: '2026-03-29T01:59:59.999Z' },
    // Overlap: the earlier instant.
    { zone: 'Europe/London', local: '2026-10-25T01:00:00', utc: '2026-10-25T00:00:00.000Z' },
    { zone: 'America/New_York', local: '2026-03-08T02:30:00', utc: '2026-03-08T07:30:00.000Z' },
    { zone: 'America/New_York', local: '2026-11-01T01:30:00', utc: '2026-11-01T05:30:00.000Z' },
    { zone: 'Australia/Lord_Howe', local: '2026-04-05T01:45:00', utc: '2026-04-04T14:45:00.000Z' },
    { zone: 'Asia/Kolkata', local: '2026-06-01T00:00:00', utc: '2026-05-31T18:30:00.000Z' },
    { zone: 'UTC', local: '2026-06-01T00:00:00', utc: '2026-06-01T00:00:00.000Z' },
  ])('converts $local in $zone to $utc', ({ zone, local, utc }) => {
    // Prepare
    const converter = new ZoneConverter(zone);
    const localMs = parseLocalTime(local) as number;

    // Act
    const instant = converter.toUtc(localMs);

    // Assess
    expect(new Date(instant).toISOString()).toBe(utc);
  });

  it('gives the same instants when an hour is converted again from the cache', () => {
    // Prepare
    const converter = new ZoneConverter('Europe/Paris');
    const times = ['2026-10-25T02:10:00', '2026-10-25T02:50:00', '2026-10-25T02:10:00'];

    // Act
    const instants = times.map((t) => new Date(converter.toUtc(parseLocalTime(t) as number)).toISOString());

    // Assess
    expect(instants).toEqual([
      '2026-10-25T00:10:00.000Z',
      '2026-10-25T00:50:00.000Z',
      '2026-10-25T00:10:00.000Z',
    ]);
  });

  it('throws EXPORT_TIME_ZONE_INVALID when the zone is unknown', () => {
    // Act
    const create = () => new ZoneConverter('Mars/Olympus_Mons');

    // Assess
    expect(create).toThrow(expect.objectContaining({ code: 'EXPORT_TIME_ZONE_INVALID' }));
  });
});

describe('parseLocalTime', () => {
  it.each([
    ['2026-03-29T01:30:00', '2026-03-29T01:30:00.000'],
    ['2026-03-29 01:30', '2026-03-29T01:30:00.000'],
    ['2026-12-31T23:59:59.9999999', '2026-12-31T23:59:59.999'],
    ['2026-01-01T00:00:00.5', '2026-01-01T00:00:00.500'],
  ])('reads %s as %s', (text, expected) => {
    // Act
    const ms = parseLocalTime(text);

    // Assess
    expect(new Date(ms as number).toISOString().slice(0, -1)).toBe(expected);
  });

  it.each([
    '',
    '2026-02-30T00:00:00',
    '2026-13-01T00:00:00',
    '2026-01-01T24:00:00',
    '2026-01-01T10:00:00Z',
    '0099-01-01T00:00:00',
  ])('returns undefined when the text is %j', (text) => {
    // Act
    const ms = parseLocalTime(text);

    // Assess
    expect(ms).toBeUndefined();
  });

  it('reads times of the same hour the same way when the hour prefix is cached', () => {
    // Prepare
    const texts = [
      '1969-12-31T23:10:00',
      '1969-12-31T23:59:59.5',
      '2026-03-29T01:30:00',
      '2026-03-29T01:31:07.25',
      '2026-03-29T01:59:59.9999999',
      '2026-03-29T01:60:00',
      '2026-03-29T01:30:00Z',
      '2026-03-29T01:30:00.',
      '2026-03-29T01:30:0x',
      '2026-03-29T01:30:00.1x',
    ];

    // Act
    const read = texts.map((t) => {
      const ms = parseLocalTime(t);
      return ms === undefined ? undefined : new Date(ms).toISOString();
    });

    // Assess
    expect(read).toEqual([
      '1969-12-31T23:10:00.000Z',
      '1969-12-31T23:59:59.500Z',
      '2026-03-29T01:30:00.000Z',
      '2026-03-29T01:31:07.250Z',
      '2026-03-29T01:59:59.999Z',
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('gives the calendar date of local milliseconds', () => {
    // Act
    const date = localDate(parseLocalTime('2026-07-01T23:59:59.999') as number);

    // Assess
    expect(date).toBe('2026-07-01');
  });
});

describe('ZoneConverter against the shared vectors', () => {
  it.each(vectorFile.vectors)('converts $local in $zone ($kind) to $instant', (v) => {
    // Prepare
    const converter = new ZoneConverter(v.zone);
    const localMs = parseLocalTime(v.local) as number;
    // Act
    const instant = converter.toUtc(localMs);
    // Assess
    expect(new Date(instant).toISOString().replace('.000Z', 'Z')).toBe(v.instant);
  });

  it.each(vectorFile.vectors)('writes $instant in $zone as $resolved', (v) => {
    // Prepare
    const converter = new ZoneConverter(v.zone);
    const instant = Date.parse(v.instant);
    // Act
    const text = converter.formatWithOffset(instant);
    // Assess
    expect(text).toBe(v.resolved);
    expect(localDate(instant + converter.offsetAt(instant))).toBe(v.date);
  });

  it.each(vectorFile.vectors.filter((v) => v.dayStart))(
    'starts the local day of $local in $zone at $resolved, whether or not its midnight exists',
    (v) => {
      // Prepare
      const converter = new ZoneConverter(v.zone);
      // Act
      const start = converter.startOfDay(v.local.slice(0, 10));
      // Assess
      expect(new Date(start).toISOString().replace('.000Z', 'Z')).toBe(v.instant);
      expect(converter.formatWithOffset(start)).toBe(v.resolved);
    },
  );
});
