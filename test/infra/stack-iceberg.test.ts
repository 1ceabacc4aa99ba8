import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { CALLS_WITH_CONTACTS_VIEW, callsWithContactsSql, prepareContactTables } from '../../lib/export';
import { DATASETS, tableSchema } from '../../lib/export/schema';
import { lakeTable, loadTable } from '../../lib/export/table/commit/table';
import { tableLocation } from '../../lib/export/table/metadata/location';
import { initialSchema, partitionSpec } from '../../lib/export/table/metadata/schema-mapping';
import { CONTACT_TABLES, ICEBERG_TABLES, TABLE_RETENTION } from '../../lib/infra/iceberg-tables';
import { fileCatalogOf, LocalDirectoryStore, type ObjectStore } from '../../lib/stores';
import { MULTI_TENANT_CONFIG, synthStack } from './stack-synth';
import { createOnlyTable, createOnlyTables } from './table-resources';

/**
 * The Iceberg tables of the default deployment (`tableFormat: 'iceberg'`): created once by
 * the stack (glue:CreateTable, never updated) with the export's own schema mapping and partition spec, at the location the
 * export's table layout gives, kept by Glue's three optimizers, committed to by the Commit function.
 */

type Resource<P> = { Properties: P; DependsOn?: string[] };
type OptimizerProps = {
  TableName: string;
  DatabaseName: string;
  Type: string;
  TableOptimizerConfiguration: Record<string, unknown> & { Enabled: boolean; RoleArn: unknown };
};

const resources = <P>(t: Template, type: string) =>
  Object.entries(t.findResources(type)) as [string, Resource<P>][];

/** A store that only has a root URI: what `tableLocation` needs to name the table's root. */
const bucketStore = (bucket: string) => ({ rootUri: `s3://${bucket}` }) as ObjectStore;

describe('ReportExportStack Iceberg tables', () => {
  let template: Template;
  beforeAll(() => {
    template = synthStack({ prefix: 'tenant/lake' });
  }, 60_000);

  it.each(Object.values(DATASETS))(
    'creates %s once, as an Iceberg v2 table (glue:CreateTable with OpenTableFormatInput alone), kept when it leaves the stack',
    (dataset) => {
      // Act
      const table = createOnlyTable(template, dataset);

      // Assess: Glue's own create; no TableInput (Glue refuses one beside OpenTableFormatInput);
      // no AWS::Glue::Table of the name, whose updates CloudFormation would make.
      expect(table.create).toMatchObject({
        CatalogId: '{{Ref:AWS::AccountId}}',
        DatabaseName: 'report_export',
        Name: dataset,
        OpenTableFormatInput: { IcebergInput: { MetadataOperation: 'CREATE', Version: '2' } },
      });
      expect(table.create.TableInput).toBeUndefined();
      expect(table.resource).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
      expect(
        Object.values(template.findResources('AWS::Glue::Table')).map(
          (t) => (t as { Properties: { Name?: string; TableInput?: { Name: string } } }).Properties,
        ),
      ).not.toContainEqual(expect.objectContaining({ Name: dataset }));
    },
  );

  it.each(Object.values(DATASETS))(
    'places %s where the export writes the table, and gives it the field ids and partition spec of the schema mapping',
    (dataset) => {
      // Prepare: the export's own view of a new table of this dataset.
      const schema = initialSchema(tableSchema({ dataset }));
      const spec = partitionSpec(schema);

      // Act
      const input = createOnlyTable(template, dataset).input;

      // Assess
      expect(input.Location).toMatch(
        new RegExp(`^s3://\\{\\{Ref:DataLakeBucket[0-9A-F]{8}\\}\\}/tenant/lake/tables/${dataset}$`),
      );
      expect(input.Location.replace(/^s3:\/\/\{\{[^}]+\}\}/, 's3://b')).toBe(
        tableLocation(bucketStore('b'), 'tenant/lake', dataset).uri,
      );
      expect(input.Schema).toMatchObject({ Type: 'struct', SchemaId: schema['schema-id'] });
      expect(input.Schema.Fields.map((f) => [f.Id, f.Name, f.Type, f.Required, f.Doc])).toEqual(
        schema.fields.map((f) => [f.id, f.name, f.type, f.required, f.doc]),
      );
      expect(input.PartitionSpec).toEqual({
        SpecId: 0,
        Fields: spec.fields.map((f) => ({
          SourceId: f['source-id'],
          FieldId: f['field-id'],
          Name: f.name,
          Transform: 'identity',
        })),
      });
      expect(input.PartitionSpec.Fields.map((f) => [f.Name, f.FieldId])).toEqual([
        ['report_id', 1000],
        ['dt', 1001],
      ]);
    },
  );

  it("creates the four Iceberg tables of the lake once: the reports' and the contact tables", () => {
    // Assess
    expect(createOnlyTables(template).map((t) => t.create.Name)).toEqual([...ICEBERG_TABLES]);
    // Fixed construct ids: a deploy keeps each resource (a new id would create the table anew).
    expect(createOnlyTables(template).map((t) => t.logicalId.replace(/([0-9A-F]{8})+$/, ''))).toEqual([
      'CatalogCallsIcebergTableCreate',
      'CatalogSummariesIcebergTableCreate',
      'CatalogContactsIcebergTableCreate',
      'CatalogContactPhonesIcebergTableCreate',
    ]);
  });

  it.each(CONTACT_TABLES)(
    'creates %s once, as an Iceberg v2 table partitioned by identity(directory_id), where the directory sync writes it',
    (name) => {
      // Act
      const table = createOnlyTable(template, name);

      // Assess
      expect(table.create).toMatchObject({
        DatabaseName: 'report_export',
        Name: name,
        OpenTableFormatInput: { IcebergInput: { MetadataOperation: 'CREATE', Version: '2' } },
      });
      expect(table.resource).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
      expect(table.input.Location.replace(/^s3:\/\/\{\{[^}]+\}\}/, 's3://b')).toBe(
        tableLocation(bucketStore('b'), 'tenant/lake', name).uri,
      );
      const directory = table.input.Schema.Fields.find((f) => f.Name === 'directory_id');
      expect(table.input.PartitionSpec).toEqual({
        SpecId: 0,
        Fields: [{ SourceId: directory?.Id, FieldId: 1000, Name: 'directory_id', Transform: 'identity' }],
      });
      expect(table.input.Schema.Fields.map((f) => f.Name)).not.toContain('tenant');
    },
  );

  describe.each([
    ['a single-tenant lake', {}, undefined],
    ['a single-tenant lake that omits contact fields', { contactOmitFields: ['email', 'extra'] }, undefined],
    ['a multi-tenant lake', MULTI_TENANT_CONFIG, 'acme'],
  ] as const)('the contact tables of %s', (_, config, tenant) => {
    it("are what the committer's PrepareTables makes (ensureTable): it finds them current", async () => {
      // Prepare: the export's own creation of the contact tables, in a file catalog.
      const t =
        tenant === undefined
          ? synthStack({ prefix: 'lake', ...config })
          : synthStack({ prefix: 'lake' }, { ...MULTI_TENANT_CONFIG, ...config });
      const root = await mkdtemp(join(tmpdir(), 'contact-tables-'));
      try {
        const store = new LocalDirectoryStore(root);
        const tables = { catalog: fileCatalogOf({ store, prefix: 'lake' }), namespace: '' };
        const omitFields = 'contactOmitFields' in config ? config.contactOmitFields : [];

        // Act
        await prepareContactTables({
          store,
          prefix: 'lake',
          tables,
          ...(tenant === undefined ? {} : { tenant }),
          omitFields,
        });

        // Assess: the same fields (ids, names, types, docs) and the same partition spec.
        for (const name of CONTACT_TABLES) {
          const loaded = await loadTable(lakeTable({ store, prefix: 'lake', ...tables }, name));
          const schema = loaded?.metadata.schemas.find(
            (x) => x['schema-id'] === loaded.metadata['current-schema-id'],
          );
          const spec = loaded?.metadata['partition-specs'][0];
          const input = createOnlyTable(t, name).input;
          expect(
            input.Schema.Fields.map((f) => [f.Id, f.Name, f.Type, f.Required, f.Doc]),
            name,
          ).toEqual(schema?.fields.map((f) => [f.id, f.name, f.type, f.required, f.doc]));
          expect(
            input.PartitionSpec.Fields.map((f) => [f.SourceId, f.FieldId, f.Name, f.Transform]),
            name,
          ).toEqual(spec?.fields.map((f) => [f['source-id'], f['field-id'], f.name, f.transform]));
        }
        const contactColumns = createOnlyTable(t, 'contacts').input.Schema.Fields.map((f) => f.Name);
        if (omitFields.length > 0) expect(contactColumns).not.toEqual(expect.arrayContaining(['email']));
        else expect(contactColumns).toEqual(expect.arrayContaining(['email', 'extra']));
      } finally {
        await rm(root, { recursive: true, force: true });
      }
    }, 60_000);
  });

  it("saves the query that creates the calls_with_contacts view over the stack's tables, in its work group", () => {
    // Act
    const queries = Object.values(template.findResources('AWS::Athena::NamedQuery')) as Resource<
      Record<string, unknown>
    >[];

    // Assess: Athena's dialect of the export's own view, over the stack's database.
    expect(queries).toHaveLength(1);
    const q = queries[0]?.Properties ?? {};
    expect(q.Database).toBe('report_export');
    expect(q.WorkGroup).toEqual({ Ref: expect.stringMatching(/^CatalogWorkGroup/) });
    expect(q.QueryString).toBe(
      callsWithContactsSql({ dialect: 'athena', tenanted: false, database: 'report_export', omitFields: [] }),
    );
    expect(String(q.QueryString)).toMatch(
      new RegExp(`^CREATE OR REPLACE VIEW .*${CALLS_WITH_CONTACTS_VIEW}`),
    );
  });

  it("sets the tables' expiry properties to the retention the optimizer applies", () => {
    // Act
    const properties = createOnlyTable(template, DATASETS.calls).input.Properties;

    // Assess
    expect(properties).toMatchObject({
      'write.format.default': 'parquet',
      'write.metadata.previous-versions-max': '100',
      'history.expire.max-snapshot-age-ms': String(7 * 24 * 3600 * 1000),
      'history.expire.min-snapshots-to-keep': '1',
    });
  });

  it('leaves the tables untouched by settings a deployment changes later (promoted columns, codec, reports)', () => {
    // Prepare: an Iceberg AWS::Glue::Table updated by CloudFormation is where its metadata
    // location is known to get lost, and a schema renumbered from scratch would clash with the
    // ids the export gave promoted columns.
    const changed = synthStack({
      prefix: 'tenant/lake',
      promotedColumns: {
        calls: [{ name: 'accountCode', type: 'string' }],
        summaries: [{ name: 'x', type: 'int' }],
      },
      parquetCodec: 'ZSTD',
      reports: [
        { id: 'rep-1', name: 'One' },
        { id: 'rep-9', name: 'Nine' },
      ],
      dataStartDate: '2020-01-01',
    });

    // Act / Assess
    for (const dataset of Object.values(DATASETS)) {
      expect(createOnlyTable(changed, dataset)).toEqual(createOnlyTable(template, dataset));
    }
  });

  it('keeps Glue optimizers on each Iceberg table: compaction, snapshot retention of 7 days, orphan files after 3', () => {
    // Act
    const optimizers = resources<OptimizerProps>(template, 'AWS::Glue::TableOptimizer').map(([, o]) => o);

    // Assess: the reports' tables and the contact tables, three each.
    expect(optimizers.map((o) => `${o.Properties.TableName} ${o.Properties.Type}`).sort()).toEqual([
      'calls compaction',
      'calls orphan_file_deletion',
      'calls retention',
      'contact_phones compaction',
      'contact_phones orphan_file_deletion',
      'contact_phones retention',
      'contacts compaction',
      'contacts orphan_file_deletion',
      'contacts retention',
      'summaries compaction',
      'summaries orphan_file_deletion',
      'summaries retention',
    ]);
    for (const o of optimizers) {
      const config = o.Properties.TableOptimizerConfiguration;
      expect(o.Properties.DatabaseName).toBe('report_export');
      expect(config.Enabled).toBe(true);
      // After the table and its policy: the custom resource, not only its policy.
      const table = createOnlyTable(template, o.Properties.TableName);
      expect(o.DependsOn).toContain(table.logicalId);
      if (o.Properties.Type === 'retention') {
        expect(config.RetentionConfiguration).toEqual({
          IcebergConfiguration: {
            SnapshotRetentionPeriodInDays: 7,
            NumberOfSnapshotsToRetain: 1,
            CleanExpiredFiles: true,
          },
        });
      }
      if (o.Properties.Type === 'orphan_file_deletion') {
        expect(config.OrphanFileDeletionConfiguration).toEqual({
          IcebergConfiguration: { OrphanFileRetentionPeriodInDays: 3 },
        });
      }
    }
    expect(TABLE_RETENTION).toEqual({
      snapshotRetentionDays: 7,
      snapshotsToRetain: 1,
      orphanFileRetentionDays: 3,
    });
  });

  it('runs each optimizer in a role only Glue assumes, one role per kind of optimizer', () => {
    // Act
    const roleIds = new Set(
      resources<OptimizerProps>(template, 'AWS::Glue::TableOptimizer').map(
        ([, o]) =>
          (o.Properties.TableOptimizerConfiguration.RoleArn as { 'Fn::GetAtt': [string, string] })[
            'Fn::GetAtt'
          ][0],
      ),
    );
    const roles = resources<{ AssumeRolePolicyDocument: { Statement: unknown[] } }>(
      template,
      'AWS::IAM::Role',
    ).filter(([id]) => roleIds.has(id));

    // Assess
    expect(roles).toHaveLength(3);
    for (const [, role] of roles) {
      expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
        { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'glue.amazonaws.com' } },
      ]);
    }
  });

  it("names the stack's Glue database as every function's table catalog", () => {
    // Act
    const catalogs = resources<{ Environment?: { Variables: Record<string, unknown> } }>(
      template,
      'AWS::Lambda::Function',
    ).flatMap(([, f]) => f.Properties.Environment?.Variables.TABLE_CATALOG ?? []);

    // Assess: every workflow function (the table creator has no environment).
    expect(catalogs.length).toBeGreaterThanOrEqual(5);
    expect(new Set(catalogs)).toEqual(new Set(['glue:report_export']));
  });
});

describe("ReportExportStack with tableFormat 'hive'", () => {
  it('creates no Iceberg table, no optimizer and no Glue grant, and names hive as the table catalog', () => {
    // Act
    const t = synthStack({ tableFormat: 'hive' });

    // Assess
    expect(createOnlyTables(t)).toEqual([]);
    t.resourceCountIs('AWS::Glue::TableOptimizer', 0);
    // No contact tables, so no view over them either.
    t.resourceCountIs('AWS::Athena::NamedQuery', 0);
    expect(JSON.stringify(t.findResources('AWS::IAM::Policy'))).not.toContain('glue:');
    const catalogs = resources<{ Environment?: { Variables: Record<string, unknown> } }>(
      t,
      'AWS::Lambda::Function',
    ).flatMap(([, f]) => f.Properties.Environment?.Variables.TABLE_CATALOG ?? []);
    expect(catalogs.length).toBeGreaterThanOrEqual(5);
    expect(new Set(catalogs)).toEqual(new Set(['hive']));
  }, 60_000);
});
