import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ensureTable,
  type IcebergTable,
  type LakeTables,
  lakeTable,
  loadTable,
  type TableSchema,
  tableSchema,
} from '../../../lib/export';
import { fileCatalogOf, LocalDirectoryStore, listAll } from '../../../lib/stores';
import { InvalidInputError } from '../../../lib/workflow/errors';
import { type PrepareTablesInput, prepareTables } from '../../../lib/workflow/prepare-tables';
import { useTempDir } from '../../support/test-scope';

const root = useTempDir('prepare-tables-');

/** A lake of its own for each test, on the local directory store and the file catalog. */
async function lake() {
  const dir = await fs.mkdtemp(path.join(root(), 'lake-'));
  const store = new LocalDirectoryStore(dir);
  const tables: LakeTables = { catalog: fileCatalogOf({ store, prefix: '' }), namespace: '' };
  const table = (dataset: string): IcebergTable => lakeTable({ store, prefix: '', ...tables }, dataset);
  const metadataKeys = async () => (await listAll(store, 'tables/')).map((o) => o.key).filter(isMetadata);
  return { store, tables, table, metadataKeys };
}

const isMetadata = (key: string) => /^tables\/[a-z_]+\/metadata\//.test(key);
const input: PrepareTablesInput = { action: 'prepare', runId: 'run-1', tenant: 'acme', jobCount: 2 };
const PROMOTED = { calls: [{ name: 'queueName', type: 'string' as const }] };

/** The calls schema as it was before version 3: every column named as its member (camelCase). */
function camelCaseSchema(schema: TableSchema): TableSchema {
  return {
    ...schema,
    columns: schema.columns.map(({ formerName, ...c }) => ({ ...c, name: formerName ?? c.name })),
  };
}

describe('prepareTables (the committer, before the jobs)', () => {
  it('creates both tables for the tenant when the lake has none, and a second call writes nothing', async () => {
    // Prepare
    const { store, tables, table, metadataKeys } = await lake();
    const deps = { ensure: ensureTable, store, prefix: '', tables, promotedColumns: PROMOTED };

    // Act
    const first = await prepareTables(input, deps);
    const afterFirst = await metadataKeys();
    const second = await prepareTables(input, deps);

    // Assess
    expect(first).toEqual({ status: 'PREPARED', tables: ['calls', 'summaries'] });
    expect(second).toEqual(first);
    for (const dataset of ['calls', 'summaries']) {
      const loaded = await loadTable(table(dataset));
      const fields = loaded?.metadata.schemas.at(-1)?.fields ?? [];
      expect(fields[0], dataset).toMatchObject({ name: 'tenant', required: true });
      expect(loaded?.metadata['partition-specs'][0]?.fields.map((f) => f.name)).toEqual([
        'tenant',
        'report_id',
        'dt',
      ]);
    }
    const calls = (await loadTable(table('calls')))?.metadata.schemas.at(-1)?.fields ?? [];
    expect(calls.map((f) => f.name)).toContain('queue_name');
    expect(afterFirst.filter((k) => k.endsWith('.metadata.json'))).toEqual([
      'tables/calls/metadata/v1.metadata.json',
      'tables/summaries/metadata/v1.metadata.json',
    ]);
    expect(await metadataKeys()).toEqual(afterFirst);
  });

  it('renames a camelCase column in place and adds a promoted column, ids kept, in one new version', async () => {
    // Prepare: a calls table written before the columns were snake_case, without the promoted column.
    const { store, tables, table } = await lake();
    const before = await ensureTable(table('calls'), camelCaseSchema(tableSchema()), { tenant: 'acme' });
    const idOf = (fields: { name: string; id: number }[], name: string) =>
      fields.find((f) => f.name === name)?.id;
    const oldFields = before.metadata.schemas.at(-1)?.fields ?? [];
    const deps = { ensure: ensureTable, store, prefix: '', tables, promotedColumns: PROMOTED };

    // Act
    await prepareTables(input, deps);
    const once = await loadTable(table('calls'));
    await prepareTables(input, deps);
    const twice = await loadTable(table('calls'));

    // Assess
    const fields = once?.metadata.schemas.at(-1)?.fields ?? [];
    expect(idOf(fields, 'conn_id')).toBe(idOf(oldFields, 'connId'));
    expect(idOf(fields, 'connId')).toBeUndefined();
    expect(idOf(fields, 'queue_name')).toBe(before.metadata['last-column-id'] + 1);
    expect(once?.base.metadataLocation).toMatch(/v2\.metadata\.json$/);
    expect(twice?.base.metadataLocation).toBe(once?.base.metadataLocation);
  });

  it.each([
    { when: 'the lake has no tables (the Hive layout)', tables: undefined, jobCount: 2 },
    { when: 'the plan has no job', tables: 'file' as const, jobCount: 0 },
  ])('prepares nothing when $when', async ({ tables, jobCount }) => {
    // Prepare
    const l = await lake();
    let calls = 0;
    const ensure: typeof ensureTable = async (...args) => {
      calls++;
      return ensureTable(...args);
    };

    // Act
    const out = await prepareTables(
      { ...input, jobCount },
      {
        ensure,
        store: l.store,
        prefix: '',
        tables: tables === undefined ? undefined : l.tables,
        promotedColumns: {},
      },
    );

    // Assess
    expect(out).toEqual({ status: 'NOTHING', tables: [] });
    expect(calls).toBe(0);
    expect(await l.metadataKeys()).toEqual([]);
  });

  it('refuses a tenant that is not a tenant id before it touches a table', async () => {
    // Prepare
    const { store, tables, metadataKeys } = await lake();

    // Act
    const refused = await prepareTables(
      { ...input, tenant: '../other' },
      { ensure: ensureTable, store, prefix: '', tables, promotedColumns: {} },
    ).catch((e: unknown) => e);

    // Assess
    expect(refused).toBeInstanceOf(InvalidInputError);
    expect(await metadataKeys()).toEqual([]);
  });
});
