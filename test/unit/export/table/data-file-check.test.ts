import { parquetWriteBuffer } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { checkDataFile, DataFileMismatch } from '../../../../lib/export/table';
import { LocalDirectoryStore, type ObjectStore } from '../../../../lib/stores';
import { useTempDir } from '../../../support/test-scope';

/** The store without its ranged read: a tail is then streamed. */
const streamed = (inner: ObjectStore): ObjectStore => ({
  rootUri: inner.rootUri,
  put: (k, b, o) => inner.put(k, b, o),
  putIfAbsent: (k, b, o) => inner.putIfAbsent(k, b, o),
  putFile: (k, f, o) => inner.putFile(k, f, o),
  get: (k) => inner.get(k),
  head: (k) => inner.head(k),
  list: (p) => inner.list(p),
  deleteMany: (k) => inner.deleteMany(k),
  copy: (f, t) => inner.copy(f, t),
});

describe('checkDataFile (what a committer trusts of a data file: the object itself)', () => {
  const dir = useTempDir('data-file-check-');

  it.each([
    { name: 'a ranged read of the tail', wrap: (s: ObjectStore) => s },
    { name: 'a streamed tail', wrap: streamed },
  ])(
    'takes the size from HEAD and the rows from the footer ($name), refusing other claims',
    async ({ wrap }) => {
      // Prepare: 1,000 rows in several row groups, so the footer is not at the start of the stream.
      const local = new LocalDirectoryStore(dir());
      const rows = Array.from({ length: 1_000 }, (_, i) => `conn-${i}-${'x'.repeat(50)}`);
      const bytes = parquetWriteBuffer({ columnData: [{ name: 'conn_id', data: rows }], rowGroupSize: 100 });
      await local.put('t/data/f.parquet', new Uint8Array(bytes));
      await local.put('t/data/not.parquet', 'just text, not parquet');
      const store = wrap(local);
      const file = { key: 't/data/f.parquet', dt: '2026-11-25', rows: 1_000, bytes: bytes.byteLength };

      // Act
      const checked = await checkDataFile(store, file);
      const refusals = await Promise.all(
        [
          { ...file, rows: 999_999 },
          { ...file, bytes: file.bytes + 1 },
          { ...file, key: 't/data/missing.parquet' },
          { ...file, key: 't/data/not.parquet', bytes: 22 },
        ].map((claim) => checkDataFile(store, claim).catch((e: unknown) => e)),
      );

      // Assess
      expect(checked).toEqual(file);
      for (const r of refusals) expect(r).toBeInstanceOf(DataFileMismatch);
      expect(refusals.map((r) => (r as Error).message)).toEqual([
        expect.stringMatching(/holds 1000 rows by its footer, not the 999999 claimed/),
        expect.stringMatching(/bytes, not the .* claimed/),
        expect.stringMatching(/does not exist/),
        expect.stringMatching(/no Parquet file/),
      ]);
    },
  );
});
