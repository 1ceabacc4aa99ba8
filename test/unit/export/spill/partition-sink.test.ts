import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZoneConverter } from '../../../../lib/calendar';
import { csvHeaderLine } from '../../../../lib/export/formats/csv-encoder';
import type { IcebergFileSchema } from '../../../../lib/export/formats/iceberg-file';
import type { PartitionSink } from '../../../../lib/export/rows/partitioner';
import { RowMapper } from '../../../../lib/export/rows/row-mapper';
import { CALLS_SCHEMA } from '../../../../lib/export/schema';
import { InlineSink, type SpillOptions, WorkerSink } from '../../../../lib/export/spill/partition-sink';
import type { PartitionOutput } from '../../../../lib/export/types';
import type { ResultRow } from '../../../../lib/spec/types';
import { duckdbQuery, sqlString } from '../../../support/duckdb';
import { bundleEncodeWorker } from '../../../support/encode-worker-bundle';
import { sampleRow } from '../../../support/result-stream';

/** 60 rows over 2 days: nulls, repeats, an unknown member (extra), sub-second starts. */
function fixedRows(): ResultRow[] {
  return Array.from({ length: 60 }, (_, i) => {
    const row = sampleRow({
      connId: `c-${i}`,
      start: `2026-03-${i % 2 === 0 ? '10' : '11'}T${String(i % 24).padStart(2, '0')}:15:30.${String(i).padStart(3, '0')}`,
      userName: `user ${i % 4}`,
      ring: i / 4,
      ans: i % 3,
    });
    if (i % 5 === 0) delete row.ring;
    if (i % 7 === 0) (row as Record<string, unknown>).queue = `q${i}`;
    return row;
  });
}

/** Writes the rows through a sink in two row groups; returns what each part file holds. */
async function spillThrough(
  sink: PartitionSink,
  rows: readonly ResultRow[],
): Promise<{ outputs: PartitionOutput[]; files: Map<string, Buffer> }> {
  const mapper = new RowMapper({ reportId: 'r', requestId: 'q', zone: new ZoneConverter('Europe/London') });
  for (const group of [rows.slice(0, 25), rows.slice(25)]) {
    const buffers = new Map<string, ReturnType<RowMapper['newBuffer']>>();
    for (const row of group) {
      mapper.append(row, (dt) => {
        let b = buffers.get(dt);
        if (b === undefined) {
          b = mapper.newBuffer();
          buffers.set(dt, b);
        }
        return b;
      });
    }
    for (const [dt, buffer] of buffers) await sink.write(dt, buffer);
  }
  const outputs = await sink.finish();
  const files = new Map<string, Buffer>();
  for (const p of outputs)
    for (const f of p.files) files.set(`${p.dt}/${f.part}.${f.format}`, await readFile(f.path));
  return { outputs, files };
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * Hashes of the part files of fixedRows() without the Iceberg option, recorded at schema
 * version 4 (`provisional` last).
 */
const HIVE_FILES = {
  '2026-03-10/0.csv': '4780b9989f20dcd633d769324120d85fbbb358994fe8ac1d2bd3702a8df5b653',
  '2026-03-10/0.parquet': '2f167d10060752ac31a6d80fc9d1d3dd26e440900212f5a6814642cf9846a321',
  '2026-03-11/0.csv': '6f3eec67ecb85e5e9b30e8c8a0b158f82c35597226423ae6eab1929e0970bc48',
  '2026-03-11/0.parquet': '5a4ce7d264cb0b8bb97cbb1f1c08f38afa2bd7616d4bc862d51e8c6ee45cd86d',
};

/** The CSV hashes recorded at schema version 3 (snake_case names, no `provisional`). */
const VERSION_3_CSV = {
  '2026-03-10/0.csv': 'dfc66e69a9c2921c365d4d4dc5be64d558a3eaa44bb1195ff57d2581f6ab5aa1',
  '2026-03-11/0.csv': '506b293aca90e5faf5447759e6b24b8d51d2e8e5d6fab2f5c1a9f834da710ee1',
};

/** A CSV text without its last field (`provisional`: last, and never quoted) on every line. */
const withoutLastField = (text: string): string => text.replace(/,[^,\r\n]*\r\n/g, '\r\n');

/** The CSV hashes recorded before the Iceberg option existed (schema version 2, camelCase header). */
const VERSION_2_CSV = {
  '2026-03-10/0.csv': '8b6ae20fd5e0fa88b274d466525ccd68eebaf51c01dc6fb5a4db8c31c077c60e',
  '2026-03-11/0.csv': '0df424b0a56dd81a7d2a3fe300e2594f9ad06858fc1bddc5dd29b8a3322f8609',
};

const ICEBERG_FILE: IcebergFileSchema = {
  fieldIds: Object.fromEntries(
    [...CALLS_SCHEMA.columns.map((c) => c.name), 'dt'].map((n, i) => [n, 101 + i]),
  ),
  schemaJson: '{"type":"struct","schema-id":3,"fields":[]}',
};

describe('InlineSink and WorkerSink', () => {
  let dir: string;
  let bundle: Awaited<ReturnType<typeof bundleEncodeWorker>>;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sink-'));
    bundle = await bundleEncodeWorker();
  });
  afterAll(async () => {
    await bundle.remove();
    await rm(dir, { recursive: true, force: true });
  });

  function options(name: string): SpillOptions {
    return {
      spillDirectory: join(dir, name),
      parquetCodec: 'SNAPPY',
      csvGzip: false,
      maxRowsPerFile: 1_000,
      spillBudgetBytes: undefined,
    };
  }

  it('writes the Hive-layout files it wrote before Iceberg data files existed', async () => {
    // Act
    const { files } = await spillThrough(new InlineSink(options('hive')), fixedRows());

    // Assess: the hashes recorded; the CSV is version 3's but for `provisional` (false: no
    // provisionalFrom) at the end of every line, and version 2's but for the header's names.
    expect(Object.fromEntries([...files].map(([k, b]) => [k, sha256(b)]))).toEqual(HIVE_FILES);
    const header = csvHeaderLine(CALLS_SCHEMA);
    const version3 = CALLS_SCHEMA.columns.slice(0, -1);
    const formerHeader = `${version3.map((c) => c.formerName ?? c.name).join(',')}\r\n`;
    for (const [key, hash] of Object.entries(VERSION_3_CSV)) {
      const text = (files.get(key) as Buffer).toString('utf8');
      expect(
        text
          .split('\r\n')
          .slice(1, -1)
          .every((line) => line.endsWith(',false')),
      ).toBe(true);
      expect(sha256(Buffer.from(withoutLastField(text), 'utf8'))).toBe(hash);
    }
    for (const [key, hash] of Object.entries(VERSION_2_CSV)) {
      const text = withoutLastField((files.get(key) as Buffer).toString('utf8'));
      expect(text.startsWith(`${version3.map((c) => c.name).join(',')}\r\n`)).toBe(true);
      expect(
        sha256(Buffer.from(formerHeader + text.slice(header.length - ',provisional'.length), 'utf8')),
      ).toBe(hash);
    }
  });

  it("writes Iceberg data files holding their partition's day, the same bytes on the worker as inline", async () => {
    // Prepare
    const inlineOptions = { ...options('inline'), icebergFile: ICEBERG_FILE };
    const workerOptions = { ...options('worker'), icebergFile: ICEBERG_FILE };
    const worker = await WorkerSink.start(bundle.url, workerOptions, undefined);
    if (worker === undefined) throw new Error('the encode worker did not start');

    // Act
    const inline = await spillThrough(new InlineSink(inlineOptions), fixedRows());
    const threaded = await spillThrough(worker, fixedRows()).finally(() => worker.close());

    // Assess: CSV as in the Hive layout; each Parquet file's dt is its partition.
    expect([...threaded.files.keys()]).toEqual([...inline.files.keys()]);
    for (const [key, bytes] of threaded.files)
      expect([key, sha256(bytes)]).toEqual([key, sha256(inline.files.get(key) as Buffer)]);
    for (const [key, bytes] of inline.files) {
      if (key.endsWith('.csv')) expect(sha256(bytes)).toBe(HIVE_FILES[key as keyof typeof HIVE_FILES]);
    }
    for (const dt of ['2026-03-10', '2026-03-11']) {
      const path = inline.outputs.find((p) => p.dt === dt)?.files.find((f) => f.format === 'parquet')
        ?.path as string;
      const read = await duckdbQuery(
        `SELECT DISTINCT dt::VARCHAR AS dt, count(*) OVER () AS n FROM read_parquet(${sqlString(path)})`,
      );
      expect(read).toEqual([{ dt, n: 30n }]);
    }
  });
});
