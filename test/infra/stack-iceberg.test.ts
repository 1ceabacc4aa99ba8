import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { DATASETS, type Dataset, tableSchema } from '../../lib/export/schema';
import { tableLocation } from '../../lib/export/table/metadata/location';
import { initialSchema, partitionSpec } from '../../lib/export/table/metadata/schema-mapping';
import { TABLE_RETENTION } from '../../lib/infra/iceberg-tables';
import type { ObjectStore } from '../../lib/stores';
import { synthStack } from './stack-synth';
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

    // Assess
    expect(optimizers.map((o) => `${o.Properties.TableName} ${o.Properties.Type}`).sort()).toEqual([
      'calls compaction',
      'calls orphan_file_deletion',
      'calls retention',
      'summaries compaction',
      'summaries orphan_file_deletion',
      'summaries retention',
    ]);
    for (const o of optimizers) {
      const config = o.Properties.TableOptimizerConfiguration;
      expect(o.Properties.DatabaseName).toBe('report_export');
      expect(config.Enabled).toBe(true);
      // After the table and its policy: the custom resource, not only its policy.
      const table = createOnlyTable(template, o.Properties.TableName as Dataset);
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
    expect(JSON.stringify(t.findResources('AWS::IAM::Policy'))).not.toContain('glue:');
    const catalogs = resources<{ Environment?: { Variables: Record<string, unknown> } }>(
      t,
      'AWS::Lambda::Function',
    ).flatMap(([, f]) => f.Properties.Environment?.Variables.TABLE_CATALOG ?? []);
    expect(catalogs.length).toBeGreaterThanOrEqual(5);
    expect(new Set(catalogs)).toEqual(new Set(['hive']));
  }, 60_000);
});
