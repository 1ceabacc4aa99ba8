import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetMetadata } from 'hyparquet';
import { icebergRead } from 'icebird';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ZoneConverter } from '../../../lib/calendar';
import { openLake } from '../../../lib/cli/shared/lake-database';
import { localLakeTables } from '../../../lib/cli/shared/lake-tables';
import {
  catalogColumns,
  commitOverwrite,
  ensureTable,
  fileSchema,
  type IcebergTable,
  lakeTable,
  listSnapshots,
  liveFiles,
  loadTable,
} from '../../../lib/export';
import { ParquetFileEncoder } from '../../../lib/export/formats/parquet-encoder';
import { RowMapper } from '../../../lib/export/rows/row-mapper';
import { type TableSchema, tableSchema } from '../../../lib/export/schema';
import { currentSchema } from '../../../lib/export/table/metadata/metadata';
import type { ResultRow } from '../../../lib/spec/types';
import { readObject } from '../../../lib/stores';
import { useStoreFetch } from '../../support/store-fetch';

const OLD_DAY = '2026-11-23';
const NEW_DAY = '2026-11-24';
const PROMOTED = [{ name: 'queueName', type: 'string' }] as const;

/** The calls schema as it was before version 3: every column named as its member (camelCase). */
function camelCaseSchema(schema: TableSchema): TableSchema {
  return {
    ...schema,
    columns: schema.columns.map(({ formerName, ...c }) => ({ ...c, name: formerName ?? c.name })),
  };
}

function calls(day: string, tag: string): ResultRow[] {
  return [0, 1].map(
    (i) =>
      ({
        connId: `${tag}-${i}`,
        start: `${day}T0${i}:15:00`,
        userName: `user ${tag}`,
        calledUserNum: `10${i}`,
        ans: 1,
        queueName: `queue ${tag}`,
        wait: 7,
      }) as ResultRow,
  );
}

describe('a table written before the columns were snake_case', () => {
  let root: string;
  let table: IcebergTable;
  const useFetch = useStoreFetch();

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'renamed-columns-'));
    table = lakeTable(localLakeTables(root), 'calls');
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /** Writes the day's rows through our encoder as `schema` names the columns, and commits them. */
  async function publish(schema: TableSchema, day: string, tag: string): Promise<void> {
    const loaded = await ensureTable(table, schema);
    const mapper = new RowMapper({ reportId: 'r', requestId: tag, zone: new ZoneConverter('UTC'), schema });
    const encoder = new ParquetFileEncoder({ schema, iceberg: { file: fileSchema(loaded), dt: day } });
    const buffer = mapper.newBuffer();
    for (const row of calls(day, tag)) mapper.append(row, buffer);
    const bytes = Buffer.concat([
      encoder.header(),
      ...[...encoder.rowGroup(buffer)].map((c) => Uint8Array.from(c)),
      encoder.footer(),
    ]);
    buffer.release();
    const key = `${table.location.key}/data/report_id=r/dt=${day}/${tag}.parquet`;
    await table.location.store.put(key, bytes);
    const file = { key, dt: day, rows: 2, bytes: bytes.byteLength };
    await commitOverwrite(table, { reportId: 'r', dts: [day], files: [file], summary: {} });
  }

  it('renames its fields in place (same ids, same files) and reads the old rows under the new names', async () => {
    // Prepare: a lake of schema version 2 (camelCase fields, promoted queueName), one file.
    const schema = tableSchema({ dataset: 'calls', promoted: [...PROMOTED] });
    await publish(camelCaseSchema(schema), OLD_DAY, 'old');
    const before = (await loadTable(table))?.metadata;
    if (before === undefined) throw new Error('no table');
    const idsBefore = currentSchema(before, 'calls').fields.map((f) => [f.id, f.name]);
    const filesBefore = (await liveFiles(table)).files.map((f) => f.key);
    const oldFile = await readObject(table.location.store, filesBefore[0] as string);
    const oldNames = parquetMetadata(toArrayBuffer(oldFile)).schema.map((e) => e.name);
    expect(oldNames).toEqual(expect.arrayContaining(['connId', 'calledUserNum', 'queueName']));

    // Act
    const renamed = await ensureTable(table, schema);

    // Assess: one schema-only commit, every field id kept, no snapshot, no file written.
    const fields = currentSchema(renamed.metadata, 'calls').fields;
    expect(idsBefore).toContainEqual([expect.any(Number), 'connId']);
    expect(fields.map((f) => f.id)).toEqual(idsBefore.map(([id]) => id));
    expect(fields.map((f) => f.name)).toEqual(idsBefore.map(([, name]) => columnNameOf(String(name))));
    expect(fields.map((f) => f.name)).toEqual([...schema.columns.map((c) => c.name), 'dt']);
    expect(renamed.metadata['last-column-id']).toBe(before['last-column-id']);
    expect(renamed.metadata['current-snapshot-id']).toBe(before['current-snapshot-id']);
    expect((await liveFiles(table)).files.map((f) => f.key)).toEqual(filesBefore);
    const doc = (name: string) => fields.find((f) => f.name === name)?.doc;
    expect(doc('conn_id')).toMatch(/member connId\.$/);
    expect(doc('queue_name')).toMatch(/member queueName\.$/);
    expect(catalogColumns(renamed.metadata, 'calls')).toContainEqual(
      expect.objectContaining({ name: 'called_user_num', comment: expect.stringContaining('calledUserNum') }),
    );
    expect(await ensureTable(table, schema)).toMatchObject({ base: renamed.base });
    // The current snapshot is still the one before the rename: read with the current schema.
    const renamedOnly = await openLake(root);
    try {
      const answer = await renamedOnly.query('SELECT conn_id, called_user_num, queue_name FROM calls');
      expect(answer.rows.map((r) => Object.values(r)).sort()).toEqual([
        ['old-0', '100', 'queue old'],
        ['old-1', '101', 'queue old'],
      ]);
    } finally {
      renamedOnly.close();
    }

    // Act: a run after the rename writes the next day under the new names.
    await publish(schema, NEW_DAY, 'new');

    // Assess: icebird maps both files by field id (the old one's footer names connId ...).
    useFetch(table.location.store);
    const rows = await icebergRead({ tableUrl: table.location.uri });
    const pick = (r: Record<string, unknown>) => [
      r.conn_id,
      r.user_name,
      r.called_user_num,
      r.ans,
      r.queue_name,
      r.extra,
    ];
    const expected = [
      ['old-0', 'user old', '100', 1, 'queue old', '{"wait":7}'],
      ['old-1', 'user old', '101', 1, 'queue old', '{"wait":7}'],
      ['new-0', 'user new', '100', 1, 'queue new', '{"wait":7}'],
      ['new-1', 'user new', '101', 1, 'queue new', '{"wait":7}'],
    ];
    expect(rows.map(pick).sort()).toEqual(expected.sort());
    expect(Object.keys(rows[0] ?? {})).not.toContain('connId');
    expect((await listSnapshots(table)).snapshots).toHaveLength(2);

    // Assess: DuckDB (the CLI's query view) reads both files by field id too.
    const lake = await openLake(root);
    try {
      const answer = await lake.query(
        'SELECT conn_id, user_name, called_user_num, ans, queue_name, extra FROM calls ORDER BY conn_id',
      );
      expect(answer.columns).toEqual([
        'conn_id',
        'user_name',
        'called_user_num',
        'ans',
        'queue_name',
        'extra',
      ]);
      expect(answer.rows.map((r) => Object.values(r))).toEqual(expected.sort());
      const described = await lake.query('DESCRIBE calls');
      expect(described.rows.map((r) => r.column_name)).not.toContain('connId');
    } finally {
      lake.close();
    }
  });

  it('renames a field the export no longer writes (a dropped promoted column) when its name is free', async () => {
    // Prepare
    const promoted = tableSchema({ dataset: 'calls', promoted: [...PROMOTED] });
    await publish(camelCaseSchema(promoted), OLD_DAY, 'old');

    // Act
    const renamed = await ensureTable(table, tableSchema({ dataset: 'calls' }));

    // Assess
    const names = currentSchema(renamed.metadata, 'calls').fields.map((f) => f.name);
    expect(names.slice(-3)).toEqual(['queue_name', 'provisional', 'dt']);
    expect(names).not.toContain('queueName');
  });
});

/** The snake_case of the names the test's old table had (the rule is columnName's). */
function columnNameOf(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}
