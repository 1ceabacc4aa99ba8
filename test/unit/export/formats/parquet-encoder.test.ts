import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import type { ResultRow } from '../../../../lib/spec/types';
import { encodeFile } from './encode-file';

function chunkOf(file: ArrayBuffer, group: number, column: string) {
  const chunk = parquetMetadata(file).row_groups[group]?.columns.find(
    (c) => c.meta_data?.path_in_schema[0] === column,
  );
  return chunk?.meta_data;
}

describe('ParquetFileEncoder', () => {
  it('splits a PLAIN text chunk into pages of about 1 MiB when values are large', async () => {
    // Prepare: 8 distinct values of 600 KB (non-ASCII in some), one row group.
    const values = Array.from(
      { length: 8 },
      (_, i) => `${i} ${(i % 2 === 0 ? 'x' : 'é').repeat(300_000 * (2 - (i % 2)))}`,
    );
    const rows = values.map((userName, i) => ({ connId: `c${i}`, start: '2026-03-10T10:00:00', userName }));

    // Act
    const file = encodeFile([rows]);

    // Assess: a page per value (two would pass 1 MiB), read back value for value.
    const meta = chunkOf(file, 0, 'user_name');
    expect(meta?.encodings).not.toContain('RLE_DICTIONARY');
    expect(meta?.encoding_stats).toEqual([{ page_type: 'DATA_PAGE', encoding: 'PLAIN', count: 8 }]);
    const read = await parquetReadObjects({ file, columns: ['user_name'] });
    expect(read.map((r) => r.user_name)).toEqual(values);
  });

  it('writes the footer of many row groups that readers get the offsets, counts and statistics from', async () => {
    // Prepare: 40 row groups of 1..40 rows, numbers with nulls, a column only null in some groups.
    const groups = Array.from({ length: 40 }, (_, g) =>
      Array.from({ length: g + 1 }, (_, i): ResultRow => {
        const row: ResultRow = {
          connId: `c${g}-${i}`,
          start: `2026-03-${String(1 + (g % 28)).padStart(2, '0')}T10:${String(i % 60).padStart(2, '0')}:00.25`,
          userName: `user ${i % 3}`,
        };
        if (i % 4 !== 0) row.ring = i / 4 - g;
        if (g % 5 !== 0) row.ans = i;
        return row;
      }),
    );

    // Act
    const file = encodeFile(groups);

    // Assess
    const metadata = parquetMetadata(file);
    expect(metadata.row_groups.map((g) => Number(g.num_rows))).toEqual(groups.map((g) => g.length));
    const ring = chunkOf(file, 39, 'ring')?.statistics;
    expect([ring?.min_value, ring?.max_value, Number(ring?.null_count)]).toEqual([
      0.25 - 39,
      39 / 4 - 39,
      10,
    ]);
    expect(chunkOf(file, 5, 'ans')?.statistics).toEqual({ null_count: 6n });
    const start = chunkOf(file, 3, 'start')?.statistics;
    expect(start?.min_value).toEqual(new Date('2026-03-04T10:00:00.250Z'));
    const read = await parquetReadObjects({ file, columns: ['conn_id', 'ring', 'ans'] });
    expect(read.map((r) => [r.conn_id, r.ring ?? null, r.ans ?? null])).toEqual(
      groups.flat().map((r) => [r.connId, r.ring ?? null, r.ans ?? null]),
    );
  });

  it.each([
    { column: 'start', isAdjustedToUTC: false },
    { column: 'start_utc', isAdjustedToUTC: true },
  ])(
    'annotates $column with the converted type TIMESTAMP_MILLIS besides its TIMESTAMP logical type',
    ({ column, isAdjustedToUTC }) => {
      // Act
      const file = encodeFile([[{ connId: 'c', start: '2026-03-29T01:30:00' }]]);

      // Assess: parquet-java <= 1.11 readers (Spark 3.1, Glue 3.0) read only converted_type.
      const element = parquetMetadata(file).schema.find((e) => e.name === column);
      expect(element).toMatchObject({
        type: 'INT64',
        converted_type: 'TIMESTAMP_MILLIS',
        logical_type: { type: 'TIMESTAMP', isAdjustedToUTC, unit: 'MILLIS' },
      });
    },
  );
});
