import type { SchemaElement } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { checkDataFile, DataFileMismatch } from '../../../../lib/export/table';
import { LocalDirectoryStore, type ObjectStore } from '../../../../lib/stores';
import { overriding } from '../../../support/overriding-store';
import { useTempDir } from '../../../support/test-scope';

/** The store without its ranged read: a tail is then streamed. */
const streamed = (inner: ObjectStore): ObjectStore => overriding(inner);

const DAY = '2025-12-01';
/** 2025-12-01 as a DATE (days since 1970-01-01). */
const DAY_VALUE = 20_423;

/**
 * A data file as a tenanted table's (tenant, conn_id, dt; field ids 1-3) by hyparquet-writer,
 * its constant columns dictionary-encoded as our encoder writes them, with what `tenant` and
 * `dt` its rows hold.
 */
function dataFile(rows: number, tenant: string | undefined, day: number): Uint8Array {
  const ids = Array.from({ length: rows }, (_, i) => `conn-${i}-${'x'.repeat(50)}`);
  const columns = [
    ...(tenant === undefined ? [] : [{ name: 'tenant', data: Array(rows).fill(tenant) }]),
    { name: 'conn_id', data: ids },
    { name: 'dt', data: new Int32Array(rows).fill(day) },
  ];
  const schema = [
    { name: 'root', num_children: columns.length },
    ...(tenant === undefined
      ? []
      : [
          {
            name: 'tenant',
            type: 'BYTE_ARRAY',
            repetition_type: 'REQUIRED',
            converted_type: 'UTF8',
            field_id: 1,
          },
        ]),
    { name: 'conn_id', type: 'BYTE_ARRAY', repetition_type: 'OPTIONAL', converted_type: 'UTF8', field_id: 2 },
    { name: 'dt', type: 'INT32', repetition_type: 'REQUIRED', converted_type: 'DATE', field_id: 3 },
  ] as SchemaElement[];
  return new Uint8Array(
    parquetWriteBuffer({
      columnData: columns,
      schema,
      codec: 'UNCOMPRESSED',
      rowGroupSize: 100,
    }),
  );
}

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
      const bytes = dataFile(1_000, undefined, DAY_VALUE);
      await local.put('t/data/f.parquet', bytes);
      await local.put('t/data/not.parquet', 'just text, not parquet');
      const store = wrap(local);
      const file = { key: 't/data/f.parquet', dt: DAY, rows: 1_000, bytes: bytes.byteLength };

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

  it.each([
    { name: 'a ranged read', wrap: (s: ObjectStore) => s },
    { name: 'a streamed read', wrap: streamed },
  ])(
    'refuses a file whose rows say another tenant or day than its key and claim ($name)',
    async ({ wrap }) => {
      // Prepare: acme stages at its own key an honest file, one whose rows say globex, one whose
      // rows say another day (sizes and row counts all true).
      const local = new LocalDirectoryStore(dir());
      const under = `t/data/tenant=acme/report_id=r1/dt=${DAY}/`;
      const put = async (name: string, bytes: Uint8Array) => {
        await local.put(`${under}${name}`, bytes);
        return { key: `${under}${name}`, dt: DAY, rows: 250, bytes: bytes.byteLength };
      };
      const honest = await put('honest.parquet', dataFile(250, 'acme', DAY_VALUE));
      const forged = await put('forged.parquet', dataFile(250, 'globex', DAY_VALUE));
      const otherDay = await put('day.parquet', dataFile(250, 'acme', DAY_VALUE + 1));
      const noTenant = await put('untenanted.parquet', dataFile(250, undefined, DAY_VALUE));
      const store = wrap(local);
      const table = { fieldIds: { tenant: 1, conn_id: 2, dt: 3 } };

      // Act
      const accepted = await Promise.all([checkDataFile(store, honest), checkDataFile(store, honest, table)]);
      const refusals = await Promise.all(
        [
          checkDataFile(store, forged),
          checkDataFile(store, forged, table),
          checkDataFile(store, otherDay),
          checkDataFile(store, noTenant),
          checkDataFile(store, honest, { fieldIds: { tenant: 2, conn_id: 1, dt: 3 } }),
        ].map((p) => p.catch((e: unknown) => e)),
      );

      // Assess
      expect(accepted).toEqual([honest, honest]);
      for (const r of refusals) expect(r).toBeInstanceOf(DataFileMismatch);
      expect(refusals.map((r) => (r as Error).message)).toEqual([
        expect.stringMatching(
          /forged\.parquet row group 0: its tenant column has a dictionary .* not only acme/,
        ),
        expect.stringMatching(/forged\.parquet row group 0: its tenant column .* not only acme/),
        expect.stringMatching(/day\.parquet row group 0: its dt column .* not only 2025-12-01/),
        expect.stringMatching(/untenanted\.parquet has 0 tenant columns, not one/),
        expect.stringMatching(/has column tenant with field id 1, not the table's 2/),
      ]);
    },
  );
});

describe('checkDataFile against the table columns (a column every reader must decode)', () => {
  const dir = useTempDir('data-file-types-');
  const field = (id: number, name: string, type: 'string' | 'int' | 'date' | 'long', required: boolean) => ({
    id,
    name,
    type,
    required,
  });

  it('refuses a column stored as another type, a required column missing, and one the table lacks', async () => {
    // Prepare: acme's honest file (tenant, conn_id, dt) and three tables it does not fit.
    const store = new LocalDirectoryStore(dir());
    const key = `t/data/tenant=acme/report_id=r1/dt=${DAY}/f.parquet`;
    const bytes = dataFile(10, 'acme', DAY_VALUE);
    await store.put(key, bytes);
    const file = { key, dt: DAY, rows: 10, bytes: bytes.byteLength };
    const fieldIds = { tenant: 1, conn_id: 2, dt: 3 };
    const tenant = field(1, 'tenant', 'string', true);
    const dt = field(3, 'dt', 'date', true);
    const fits = [tenant, field(2, 'conn_id', 'string', false), dt];

    // Act
    const accepted = await checkDataFile(store, file, { fieldIds, fields: fits });
    const refusals = await Promise.all(
      [
        [tenant, field(2, 'conn_id', 'long', false), dt],
        [tenant, field(2, 'conn_id', 'string', true), dt],
        [...fits, field(4, 'duration', 'int', true)],
        [tenant, dt],
      ].map((fields) => checkDataFile(store, file, { fieldIds, fields }).catch((e: unknown) => e)),
    );

    // Assess
    expect(accepted).toEqual(file);
    for (const r of refusals) expect(r).toBeInstanceOf(DataFileMismatch);
    expect(refusals.map((r) => (r as Error).message)).toEqual([
      expect.stringMatching(/stores column conn_id as BYTE_ARRAY, not as the table's long \(INT64\)/),
      expect.stringMatching(/has column conn_id OPTIONAL, which the table requires/),
      expect.stringMatching(/lacks the required column\(s\) duration/),
      expect.stringMatching(/has column conn_id, which the table does not have/),
    ]);
  });
});
