import { describe, expect, it } from 'vitest';
import { RAW_MEMBERS } from '../../../../lib/api/result/stream';
import { ZoneConverter } from '../../../../lib/calendar';
import type { ColumnBuffer } from '../../../../lib/export/rows/column-buffer';
import { RowMapper } from '../../../../lib/export/rows/row-mapper';
import { COLUMNS, columnName } from '../../../../lib/export/schema';
import type { ResultRow } from '../../../../lib/spec/types';

const zone = new ZoneConverter('Europe/London');

function column(buffer: ColumnBuffer, name: string): unknown[] {
  return buffer.values(COLUMNS.findIndex((c) => c.name === name));
}

describe('RowMapper', () => {
  it('keeps unknown members in extra as one JSON object text in the order sent when the policy is keep', () => {
    // Prepare
    const mapper = new RowMapper({ reportId: 'r', requestId: 'q', zone });
    const buffer = mapper.newBuffer();

    // Act
    mapper.append(
      { start: '2026-01-01T00:00:00', queue: 'sales', connId: 'c1', wait: 12 } as ResultRow,
      buffer,
    );
    mapper.append({ start: '2026-01-01T00:00:01', connId: 'c2' }, buffer);
    mapper.append(
      { start: '2026-01-01T00:00:02', tags: ['a', { b: null }], queue: 'x"y' } as ResultRow,
      buffer,
    );

    // Assess
    expect(buffer.rows).toBe(3);
    expect(column(buffer, 'extra')).toEqual([
      '{"queue":"sales","wait":12}',
      null,
      '{"tags":["a",{"b":null}],"queue":"x\\"y"}',
    ]);
    expect(column(buffer, 'conn_id')).toEqual(['c1', 'c2', null]);
    expect(mapper.unknownMembers).toEqual(['queue', 'wait', 'tags']);
  });

  it('writes the source text the client kept when a row carries raw members', () => {
    // Prepare
    const mapper = new RowMapper({ reportId: 'r', requestId: 'q', zone });
    const buffer = mapper.newBuffer();
    const row = { start: '2026-01-01T00:00:00', amount: '12.50', big: 1000, note: 'n' } as ResultRow;
    (row as Record<symbol, unknown>)[RAW_MEMBERS] = new Map([
      ['amount', '12.50'],
      ['big', '1e3'],
      ['note', '"n"'],
    ]);

    // Act
    mapper.append(row, buffer);

    // Assess
    expect(column(buffer, 'extra')).toEqual(['{"amount":12.50,"big":1e3,"note":"n"}']);
  });

  it.each([129, 5_000, 1_000_000])(
    'throws EXPORT_ROW_INVALID naming the row and member when a member without source text nests %i levels',
    (depth) => {
      // Prepare
      const mapper = new RowMapper({ reportId: 'r', requestId: 'q', zone });
      const buffer = mapper.newBuffer();
      let deep: unknown = 1;
      for (let i = 0; i < depth; i++) deep = i % 2 === 0 ? [deep] : { d: deep };
      mapper.append({ start: '2026-01-01T00:00:00' }, buffer);

      // Act
      const append = () => mapper.append({ start: '2026-01-01T00:00:01', nested: deep } as ResultRow, buffer);

      // Assess
      expect(append).toThrow(
        expect.objectContaining({
          name: 'RowConversionError',
          code: 'EXPORT_ROW_INVALID',
          message: expect.stringMatching(/^Row 1: member "nested" nests deeper than 128 levels/),
        }),
      );
    },
  );

  it('keeps a member nested 128 levels in extra when it has no source text', () => {
    // Prepare
    const mapper = new RowMapper({ reportId: 'r', requestId: 'q', zone });
    const buffer = mapper.newBuffer();
    let deep: unknown = 1;
    for (let i = 0; i < 128; i++) deep = [deep];

    // Act
    mapper.append({ start: '2026-01-01T00:00:00', nested: deep } as ResultRow, buffer);

    // Assess
    expect(column(buffer, 'extra')).toEqual([`{"nested":${'['.repeat(128)}1${']'.repeat(128)}}`]);
  });

  it('throws EXPORT_ROW_INVALID rather than looping when a member without source text is cyclic', () => {
    // Prepare
    const mapper = new RowMapper({ reportId: 'r', requestId: 'q', zone });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;

    // Act
    const append = () =>
      mapper.append({ start: '2026-01-01T00:00:00', cyclic } as ResultRow, mapper.newBuffer());

    // Assess
    expect(append).toThrow(/Row 0: member "cyclic" nests deeper than 128 levels/);
  });

  it('leaves extra null when an unknown member is undefined', () => {
    // Prepare
    const mapper = new RowMapper({ reportId: 'r', requestId: 'q', zone });
    const buffer = mapper.newBuffer();

    // Act
    mapper.append({ start: '2026-01-01T00:00:00', gone: undefined } as ResultRow, buffer);

    // Assess
    expect(column(buffer, 'extra')).toEqual([null]);
  });

  it('throws EXPORT_UNKNOWN_MEMBER naming the member when the policy is fail', () => {
    // Prepare
    const mapper = new RowMapper({ reportId: 'r', requestId: 'q', zone, unknownMembers: 'fail' });

    // Act
    const append = () =>
      mapper.append({ start: '2026-01-01T00:00:00', queue: 1 } as ResultRow, mapper.newBuffer());

    // Assess
    expect(append).toThrow(
      expect.objectContaining({ code: 'EXPORT_UNKNOWN_MEMBER', message: expect.stringContaining('"queue"') }),
    );
  });

  it.each(['warn', 'drop'])('throws ExportConfigError when the policy is %s', (policy) => {
    // Act
    const create = () =>
      new RowMapper({ reportId: 'r', requestId: 'q', zone, unknownMembers: policy as 'keep' });

    // Assess
    expect(create).toThrow(expect.objectContaining({ code: 'EXPORT_CONFIG_INVALID' }));
  });

  it.each([
    { name: 'start is missing', row: { connId: 'x' } },
    { name: 'start has an offset', row: { start: '2026-01-01T00:00:00+01:00' } },
    { name: 'callType is a fraction', row: { start: '2026-01-01T00:00:00', callType: 1.5 } },
    { name: 'ans is too big', row: { start: '2026-01-01T00:00:00', ans: 2 ** 31 } },
    { name: 'ring is text', row: { start: '2026-01-01T00:00:00', ring: 'slow' } },
    { name: 'userName is an object', row: { start: '2026-01-01T00:00:00', userName: {} } },
  ])('throws EXPORT_ROW_INVALID when $name', ({ row }) => {
    // Prepare
    const mapper = new RowMapper({ reportId: 'r', requestId: 'q', zone });

    // Act
    const append = () => mapper.append(row as unknown as ResultRow, mapper.newBuffer());

    // Assess
    expect(append).toThrow(expect.objectContaining({ code: 'EXPORT_ROW_INVALID' }));
  });

  it('maps numeric strings to numbers and omitted members to null when rows vary', () => {
    // Prepare
    const mapper = new RowMapper({ reportId: 'r', requestId: 'q', zone });
    const buffer = mapper.newBuffer();

    // Act
    const dt = mapper.append(
      { start: '2026-07-01T00:30:00', ans: '3', ring: '2.5' } as unknown as ResultRow,
      buffer,
    );

    // Assess
    expect(dt).toBe('2026-07-01');
    expect(column(buffer, 'ans')).toEqual([3]);
    expect(column(buffer, 'ring')).toEqual([2.5]);
    expect(column(buffer, 'user_name')).toEqual([null]);
    expect(column(buffer, 'start_utc')).toEqual([Date.UTC(2026, 5, 30, 23, 30)]);
    expect(column(buffer, 'report_id')).toEqual(['r']);
  });

  it.each([
    { text: '0x10', member: 'callType' },
    { text: '0b1', member: 'callType' },
    { text: '0o17', member: 'ans' },
    { text: '1e', member: 'ring' },
    { text: ' 12', member: 'duration' },
    { text: '12 ', member: 'callType' },
    { text: 'Infinity', member: 'ring' },
    { text: '-Infinity', member: 'duration' },
    { text: 'NaN', member: 'ring' },
    { text: '', member: 'ring' },
    { text: '+5', member: 'ans' },
    { text: '.5', member: 'ring' },
  ])('throws EXPORT_ROW_INVALID when the number column $member is given $text', ({ text, member }) => {
    // Prepare
    const mapper = new RowMapper({ reportId: 'r', requestId: 'q', zone });
    const row = { start: '2026-01-01T00:00:00', [member]: text } as unknown as ResultRow;

    // Act
    const append = () => mapper.append(row, mapper.newBuffer());

    // Assess
    expect(append).toThrow(expect.objectContaining({ code: 'EXPORT_ROW_INVALID' }));
  });

  it.each([
    { text: '12', member: 'callType', value: 12 },
    { text: '-3', member: 'ans', value: -3 },
    { text: '1e3', member: 'lost', value: 1000 },
    { text: '-3.5', member: 'ring', value: -3.5 },
    { text: '1E-2', member: 'duration', value: 0.01 },
    { text: '0', member: 'ring', value: 0 },
    { text: '441234567890123456', member: 'duration', value: 441234567890123460 },
  ])('reads the decimal text $text as the number $value in $member', ({ text, member, value }) => {
    // Prepare
    const mapper = new RowMapper({ reportId: 'r', requestId: 'q', zone });
    const buffer = mapper.newBuffer();

    // Act
    mapper.append({ start: '2026-01-01T00:00:00', [member]: text } as unknown as ResultRow, buffer);

    // Assess
    expect(column(buffer, columnName(member))).toEqual([value]);
  });

  it.each([
    { name: 'a string the client kept exact', value: '441234567890123456', written: '441234567890123456' },
    { name: 'a string that looks like hex', value: '0x10', written: '0x10' },
    { name: 'a string with spaces', value: ' 12 ', written: ' 12 ' },
    { name: 'a number', value: 441234567890123460, written: '441234567890123460' },
    { name: 'a fraction', value: 0.1, written: '0.1' },
  ])('writes $name to a string column as $written', ({ value, written }) => {
    // Prepare
    const mapper = new RowMapper({ reportId: 'r', requestId: 'q', zone });
    const buffer = mapper.newBuffer();

    // Act
    mapper.append({ start: '2026-01-01T00:00:00', cli: value } as unknown as ResultRow, buffer);

    // Assess
    expect(column(buffer, 'cli')).toEqual([written]);
  });
});

describe('RowMapper with a window', () => {
  const window = { dates: new Set(['2026-06-01', '2026-06-02']), label: 'June 1-2' };

  it('throws RowOutsideWindowError naming the row, its start and the window when a row is dated before the window', () => {
    // Prepare
    const mapper = new RowMapper({ reportId: 'r', requestId: 'q', zone, window });
    mapper.append({ start: '2026-06-01T10:00:00' } as ResultRow, mapper.newBuffer());

    // Act
    const append = () => mapper.append({ start: '2026-05-31T23:59:59' } as ResultRow, mapper.newBuffer());

    // Assess
    expect(append).toThrow(
      expect.objectContaining({
        name: 'RowOutsideWindowError',
        code: 'EXPORT_ROW_OUTSIDE_WINDOW',
        message: expect.stringMatching(/^Row 1: start 2026-05-31T23:59:59 .*outside the window June 1-2/),
      }),
    );
  });

  it('drops and counts rows per date without touching a buffer when the policy is drop', () => {
    // Prepare
    const mapper = new RowMapper({
      reportId: 'r',
      requestId: 'q',
      zone,
      window: { ...window, outside: 'drop' },
    });
    const picked: string[] = [];
    const buffer = mapper.newBuffer();
    const target = (dt: string) => {
      picked.push(dt);
      return buffer;
    };

    // Act
    const dates = [
      '2026-05-31T08:00:00',
      '2026-06-01T08:00:00',
      '2026-06-03T00:00:00',
      '2026-06-03T01:00:00',
    ].map((start) => mapper.append({ start } as ResultRow, target));

    // Assess
    expect(dates).toEqual([undefined, '2026-06-01', undefined, undefined]);
    expect(picked).toEqual(['2026-06-01']);
    expect(buffer.rows).toBe(1);
    expect(Object.fromEntries(mapper.droppedRows)).toEqual({ '2026-05-31': 1, '2026-06-03': 2 });
  });
});
