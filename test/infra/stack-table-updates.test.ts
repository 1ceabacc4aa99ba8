import { createRequire } from 'node:module';
import type { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { CREATE_ONLY_TABLE_TYPE } from '../../lib/infra/create-only-table';
import { ICEBERG_TABLES } from '../../lib/infra/iceberg-tables';
import type { ReportExportConfig } from '../../lib/infra/stack-config';
import { MULTI_TENANT_CONFIG, synthStack } from './stack-synth';
import { cfnText, createOnlyTables } from './table-resources';

/**
 * The tables' pointer belongs to the committer: a stack update never changes a table. Two
 * configurations that differ in a table setting are synthesized, and the update
 * CloudFormation would make from one to the other is played against the tables: every table
 * resource it updates is handed to the table creator's handler (lib/infra/table-creator) as
 * the Update event CloudFormation sends, with a Glue that records its calls; a table resource
 * it removes is retained (no Delete event). An `AWS::Glue::Table` of an Iceberg table of the lake, which
 * CloudFormation updates itself, is refused outright.
 */

type Event = {
  RequestType: 'Create' | 'Update' | 'Delete';
  PhysicalResourceId?: string;
  ResourceProperties: { CreateTableInput: string };
};
type Glue = {
  createTable(input: Record<string, unknown>): Promise<unknown>;
  getTable(input: Record<string, unknown>): Promise<{ Table?: { Parameters?: Record<string, string> } }>;
};
type Handler = {
  createOnlyTable(
    event: Event,
    glue: Glue,
  ): Promise<{ PhysicalResourceId: string; Data?: Record<string, string> }>;
};
const handler = createRequire(import.meta.url)('../../lib/infra/table-creator/index.js') as Handler;

/**
 * A Glue that records its CreateTable requests and answers each with `answer`, and answers
 * GetTable with a table of `existingType` (recorded too).
 */
function recordingGlue(answer: () => Promise<unknown> = async () => ({}), existingType = 'ICEBERG') {
  const calls: Record<string, unknown>[] = [];
  const reads: Record<string, unknown>[] = [];
  const glue: Glue = {
    createTable: (input) => {
      calls.push(input);
      return answer();
    },
    getTable: async (input) => {
      reads.push(input);
      return { Table: { Parameters: { table_type: existingType } } };
    },
  };
  return { calls, reads, glue };
}

type Resource = { Type: string; Properties?: Record<string, unknown>; DeletionPolicy?: string };
const resourcesOf = (t: Template) => (t.toJSON() as { Resources: Record<string, Resource> }).Resources;
const eventProps = (r: Resource) => ({ CreateTableInput: cfnText(r.Properties?.CreateTableInput) });
const isLakeTable = (r: Resource) =>
  r.Type === CREATE_ONLY_TABLE_TYPE ||
  (r.Type === 'AWS::Glue::Table' &&
    (ICEBERG_TABLES as readonly string[]).includes(
      String(
        (r.Properties?.Name as string | undefined) ??
          (r.Properties?.TableInput as { Name?: string } | undefined)?.Name,
      ),
    ) &&
    r.Properties?.OpenTableFormatInput !== undefined);

/** What CloudFormation does to the lake's tables going from `before` to `after`. */
function tableChanges(before: Template, after: Template) {
  const a = resourcesOf(before);
  const b = resourcesOf(after);
  const ids = (r: Record<string, Resource>) => Object.keys(r).filter((id) => isLakeTable(r[id] as Resource));
  return {
    updated: ids(b).filter(
      (id) => a[id] !== undefined && JSON.stringify(a[id]?.Properties) !== JSON.stringify(b[id]?.Properties),
    ),
    removed: ids(a).filter((id) => b[id] === undefined),
    added: ids(b).filter((id) => a[id] === undefined),
    before: a,
    after: b,
  };
}

const base = synthStack();
const multi = synthStack({}, MULTI_TENANT_CONFIG);

/** Table settings a deployment changes, and whether the change names the tables anew. */
const SETTINGS: [string, Template, Template, { moves: boolean; redefines: boolean }][] = [
  [
    'promoted columns added',
    base,
    synthStack({
      promotedColumns: {
        calls: [{ name: 'accountCode', type: 'string' }],
        summaries: [{ name: 'x', type: 'int' }],
      },
    }),
    { moves: false, redefines: false },
  ],
  [
    'reports and data start date changed',
    base,
    synthStack({ reports: [{ id: 'rep-9', name: 'Nine' }], dataStartDate: '2020-01-01' }),
    { moves: false, redefines: false },
  ],
  // The definition itself changes (the tenant column and partition): the Update still calls nothing.
  ['single-tenant lake made multi-tenant', base, multi, { moves: false, redefines: true }],
  [
    'database renamed',
    base,
    synthStack({ databaseName: 'calls_lake' } as Partial<ReportExportConfig>),
    { moves: true, redefines: true },
  ],
  ['lake prefix moved', base, synthStack({ prefix: 'lake2' }), { moves: true, redefines: true }],
  // The contacts table's columns (PrepareTables evolves the live table; the Update calls nothing).
  [
    'contact fields omitted',
    base,
    synthStack({ contactOmitFields: ['email'] }),
    { moves: false, redefines: true },
  ],
];

describe('the Iceberg tables across stack updates', () => {
  it.each(SETTINGS)(
    'changes no table when the %s (no update call, no delete)',
    async (_, before, after, expected) => {
      // Prepare
      const changes = tableChanges(before, after);
      const glue = recordingGlue();

      // Act: the Update event of every table resource CloudFormation updates.
      const replies = [];
      for (const id of changes.updated) {
        const r = changes.after[id] as Resource;
        replies.push(
          await handler.createOnlyTable(
            {
              RequestType: 'Update',
              PhysicalResourceId: `prior/${id}`,
              ResourceProperties: eventProps(r),
            },
            glue.glue,
          ),
        );
      }

      // Assess: only create-only tables, updated with no call and the same physical id, removed
      // ones retained; a changed definition was seen (the test can tell).
      const glueTables = (r: Record<string, Resource>) =>
        Object.keys(r).filter((id) => r[id]?.Type === 'AWS::Glue::Table' && isLakeTable(r[id] as Resource));
      expect([...glueTables(changes.before), ...glueTables(changes.after)]).toEqual([]);
      for (const id of [...changes.updated, ...changes.added])
        expect(changes.after[id]?.Type, id).toBe(CREATE_ONLY_TABLE_TYPE);
      expect(glue.calls).toEqual([]);
      expect(replies.map((r) => r.PhysicalResourceId)).toEqual(changes.updated.map((id) => `prior/${id}`));
      for (const id of changes.removed) expect(changes.before[id]?.DeletionPolicy, id).toBe('Retain');
      expect(changes.updated.length > 0 || changes.added.length > 0).toBe(expected.redefines);
      expect(changes.removed.length > 0).toBe(expected.moves);
      expect(createOnlyTables(after).map((t) => t.create.Name)).toEqual([...ICEBERG_TABLES]);
    },
    60_000,
  );

  it('creates a moved table at its new place once, and keeps the old one', async () => {
    // Prepare
    const changes = tableChanges(base, synthStack({ prefix: 'lake2' }));
    const glue = recordingGlue();

    // Act: CloudFormation's Create of the resources the move adds.
    for (const id of changes.added)
      await handler.createOnlyTable(
        { RequestType: 'Create', ResourceProperties: eventProps(changes.after[id] as Resource) },
        glue.glue,
      );

    // Assess
    expect(glue.calls.map((c) => [c.Name, (c.OpenTableFormatInput as object) !== undefined])).toEqual(
      ICEBERG_TABLES.map((t) => [t, true]),
    );
    for (const t of ICEBERG_TABLES) expect(JSON.stringify(glue.calls)).toContain(`/lake2/tables/${t}`);
    expect(changes.removed).toHaveLength(ICEBERG_TABLES.length);
  }, 60_000);
});

describe('the table creator (lib/infra/table-creator)', () => {
  const [calls] = createOnlyTables(base);
  if (calls === undefined) throw new Error('no create-only table in the stack');
  const props = eventProps(calls.resource as Resource);

  it("sends the resource's glue:CreateTable request whole on Create", async () => {
    // Prepare
    const glue = recordingGlue();

    // Act
    const reply = await handler.createOnlyTable(
      { RequestType: 'Create', ResourceProperties: props },
      glue.glue,
    );

    // Assess
    expect(glue.calls).toEqual([JSON.parse(props.CreateTableInput)]);
    expect(reply).toEqual({ PhysicalResourceId: 'report_export/calls', Data: { Adopted: 'false' } });
  });

  it('adopts the table an existing deployment has when Glue answers AlreadyExistsException', async () => {
    // Prepare: the upgrade from a stack whose AWS::Glue::Table (retained) made it.
    const exists = Object.assign(new Error('Table already exists.'), { name: 'AlreadyExistsException' });
    const glue = recordingGlue(() => Promise.reject(exists));

    // Act
    const reply = await handler.createOnlyTable(
      { RequestType: 'Create', ResourceProperties: props },
      glue.glue,
    );

    // Assess
    expect(glue.calls).toHaveLength(1);
    expect(glue.reads).toEqual([
      { CatalogId: '{{Ref:AWS::AccountId}}', DatabaseName: 'report_export', Name: 'calls' },
    ]);
    expect(reply).toEqual({ PhysicalResourceId: 'report_export/calls', Data: { Adopted: 'true' } });
  });

  it('fails the Create when the existing table of the name is not an Iceberg table (a Hive table left)', async () => {
    // Prepare
    const exists = Object.assign(new Error('Table already exists.'), { name: 'AlreadyExistsException' });
    const glue = recordingGlue(() => Promise.reject(exists), 'EXTERNAL_TABLE');

    // Act / Assess
    await expect(
      handler.createOnlyTable({ RequestType: 'Create', ResourceProperties: props }, glue.glue),
    ).rejects.toThrow(/report_export\/calls exists and is not an Iceberg table/);
  });

  it('fails the Create on any other Glue error', async () => {
    // Prepare
    const denied = Object.assign(new Error('not authorized'), { name: 'AccessDeniedException' });
    const glue = recordingGlue(() => Promise.reject(denied));

    // Act / Assess
    await expect(
      handler.createOnlyTable({ RequestType: 'Create', ResourceProperties: props }, glue.glue),
    ).rejects.toBe(denied);
  });

  it.each(['Update', 'Delete'] as const)('calls nothing on %s and keeps the physical id', async (type) => {
    // Prepare
    const glue = recordingGlue();

    // Act
    const reply = await handler.createOnlyTable(
      { RequestType: type, PhysicalResourceId: 'report_export/calls', ResourceProperties: props },
      glue.glue,
    );

    // Assess
    expect([...glue.calls, ...glue.reads]).toEqual([]);
    expect(reply).toEqual({ PhysicalResourceId: 'report_export/calls' });
  });
});
