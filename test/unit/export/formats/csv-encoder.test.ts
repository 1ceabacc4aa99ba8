import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ZoneConverter } from '../../../../lib/calendar';
import { CHUNK_BYTES } from '../../../../lib/export/formats/chunk-pool';
import { CsvFileEncoder } from '../../../../lib/export/formats/csv-encoder';
import { RowMapper } from '../../../../lib/export/rows/row-mapper';
import { CALLS_SCHEMA } from '../../../../lib/export/schema';
import type { ResultRow } from '../../../../lib/spec/types';

const COLUMNS = CALLS_SCHEMA.columns;

function encode(rows: ResultRow[], gzip = false, provisionalFrom?: string): string {
  const mapper = new RowMapper({
    reportId: 'r',
    requestId: 'q',
    zone: new ZoneConverter('UTC'),
    ...(provisionalFrom === undefined ? {} : { provisionalFrom }),
  });
  const buffer = mapper.newBuffer();
  for (const row of rows) mapper.append(row, buffer);
  const encoder = new CsvFileEncoder({ gzip });
  const bytes = Buffer.concat([encoder.header(), ...encoder.rowGroup(buffer), ...encoder.rowGroup(buffer)]);
  return (gzip ? gunzipSync(bytes) : bytes).toString('utf8');
}

describe('CsvFileEncoder', () => {
  it('keeps every separator when long records of repeated text end exactly at a chunk boundary', () => {
    // Prepare: records of ~5.6 KB from dictionary fields; the first record's length moves
    // by one byte per shift, so some field ends exactly at the end of a 1 MiB chunk.
    const long = (c: string) => c.repeat(700);
    const separatorsPerRecord = COLUMNS.length - 1;
    const failures: number[] = [];

    // Act
    for (let shift = 0; shift < 800; shift++) {
      const rows = Array.from({ length: 200 }, (_, i) => ({
        connId: i === 0 ? 'x'.repeat(shift) : 'c',
        start: '2026-01-01T00:00:00',
        userName: long('a'),
        userNum: long('b'),
        cli: long('c'),
        cliName: long('d'),
        hgNum: long('e'),
        hgName: long('f'),
        calledUserNum: long('g'),
        calledUserName: long('h'),
      }));
      const text = encode(rows);
      const commas = text.split(',').length - 1;
      if (commas !== separatorsPerRecord * 401) failures.push(shift); // header + 2 x 200 records
    }

    // Assess
    expect(failures).toEqual([]);
  });

  it.each([
    { value: 'plain', field: 'plain' },
    { value: 'a,b', field: '"a,b"' },
    { value: 'say "hi"', field: '"say ""hi"""' },
    { value: 'line\nbreak', field: '"line\nbreak"' },
    { value: 'cr\rlf\r\n', field: '"cr\rlf\r\n"' },
    { value: 'Zoë 日本', field: 'Zoë 日本' },
    { value: '', field: '""' },
  ])('writes $value as $field when it is a string field', ({ value, field }) => {
    // Act
    const text = encode([{ start: '2026-01-01T00:00:00', userName: value }]);

    // Assess
    expect(text).toContain(`,2026-01-01T00:00:00.000,${field},`);
  });

  it('writes a header, CRLF records, empty fields for nulls and ISO timestamps', () => {
    // Act
    const text = encode([{ start: '2026-01-01T10:00:00', ring: 1.5 }]);

    // Assess
    const lines = text.split('\r\n');
    expect(lines[0]).toBe(COLUMNS.map((c) => c.name).join(','));
    expect(lines[1]).toBe(
      ',2026-01-01T10:00:00.000,,,,,,,,,,,,1.5,,,,,,,2026-01-01T10:00:00.000Z,r,q,,false',
    );
    expect(lines).toHaveLength(4);
    expect(lines[3]).toBe('');
  });

  it('writes provisional true on the rows of the day the data was read as of and later, false before', () => {
    // Act
    const text = encode(
      [{ start: '2025-12-31T23:59:59' }, { start: '2026-01-01T00:00:00' }, { start: '2026-01-02T08:00:00' }],
      false,
      '2026-01-01',
    );

    // Assess
    const records = text.split('\r\n').slice(1, 4);
    expect(records.map((r) => r.split(',').at(-1))).toEqual(['false', 'true', 'true']);
  });

  it('writes extra as one field, quoted with its quotes doubled, when a row has members without a column', () => {
    // Act
    const text = encode([{ start: '2026-01-01T10:00:00', queue: 'a,b', n: 1 } as ResultRow]);

    // Assess
    const record = text.split('\r\n')[1];
    expect(record).toMatch(/,r,q,"\{""queue"":""a,b"",""n"":1\}",false$/);
  });

  it('writes the same text when gzip is on and the members are decompressed', () => {
    // Prepare
    const rows = [{ start: '2026-01-01T10:00:00', userName: 'x,y' }];

    // Act
    const gz = encode(rows, true);

    // Assess
    expect(gz).toBe(encode(rows));
  });

  it.each([
    { name: 'plain', value: `${'a'.repeat(3 * 1024 * 1024)}z`, field: `${'a'.repeat(3 * 1024 * 1024)}z` },
    {
      name: 'quoted',
      value: `say "${'é'.repeat(1024 * 1024)}",\r\n"${'b'.repeat(70_000)}"`,
      field: `"say ""${'é'.repeat(1024 * 1024)}"",\r\n""${'b'.repeat(70_000)}"""`,
    },
  ])(
    'writes a $name field of megabytes across 1 MiB chunks with the bytes of a short one',
    ({ value, field }) => {
      // Prepare
      const mapper = new RowMapper({ reportId: 'r', requestId: 'q', zone: new ZoneConverter('UTC') });
      const buffer = mapper.newBuffer();
      mapper.append({ start: '2026-01-01T00:00:00', userName: value, cliName: 'n' }, buffer);
      const encoder = new CsvFileEncoder();

      // Act
      const chunks = encoder.rowGroup(buffer);

      // Assess: no chunk of twice the field's size (the quoting worst case) is allocated.
      expect(Math.max(...chunks.map((c) => c.buffer.byteLength))).toBeLessThanOrEqual(CHUNK_BYTES);
      expect(Buffer.concat(chunks).toString('utf8')).toBe(
        `,2026-01-01T00:00:00.000,${field},,,n,,,,,,,,,,,,,,,2026-01-01T00:00:00.000Z,r,q,,false\r\n`,
      );
    },
  );

  it('keeps every record whole when rows span several 1 MiB chunks and gzip members', () => {
    // Prepare
    const long = 'x'.repeat(300);
    const rows = Array.from({ length: 5_000 }, (_, i) => ({
      start: '2026-01-01T10:00:00',
      userName: `${i},${long}`,
      cliName: i === 7 ? 'é'.repeat(1_200_000) : 'ü',
    }));

    // Act
    const plain = encode(rows);
    const gz = encode(rows, true);

    // Assess
    expect(gz).toBe(plain);
    // Header, the rows twice (encode writes two row groups), and the empty tail.
    expect(plain.split('\r\n')).toHaveLength(1 + 10_000 + 1);
    // userNum and cli are empty between userName and cliName.
    expect(plain).toContain(`,"4999,${long}",,,ü,`);
    expect(plain).toContain(`,"7,${long}",,,${'é'.repeat(1_200_000)},`);
  });
});
