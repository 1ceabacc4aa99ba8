import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { parquetMetadata } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportReportResult } from '../../lib/export';
import { DATASETS, glueColumns, gluePartitionKeys, tableSchema } from '../../lib/export/schema';
import { cdkFeatureFlags } from '../../lib/infra/cdk-context';
import {
  callsTableInput,
  type LakeLocation,
  PLACEHOLDERS,
  partitionKeyTemplate,
  runRecordColumns,
  runRecordKeyTemplate,
  runsTableInput,
  summariesTableInput,
} from '../../lib/infra/lake-tables';
import { ReportExportStack } from '../../lib/infra/report-export-stack';
import { LocalDirectoryStore, listAll } from '../../lib/stores';
import { finalizeRun } from '../../lib/workflow/finalize';
import { buildRunRecord } from '../../lib/workflow/run-record';
import { callsOn, resultStreamOf } from '../support/result-stream';

const LOCATION: LakeLocation = {
  bucket: 'lake-bucket',
  prefix: 'tenant/lake',
  dataset: 'calls',
  reportIds: ['rep-1', 'rep-2'],
  dataStartDate: '2021-06-01',
};

/** Resolves a `storage.location.template` the way Athena does for one partition. */
function resolveTemplate(template: string, values: { reportId?: string; dt: string }): string {
  let out = template.replaceAll(PLACEHOLDERS.dt, values.dt);
  if (values.reportId !== undefined) out = out.replaceAll(PLACEHOLDERS.reportId, values.reportId);
  return out;
}

/** The directory part of a key. */
const dirOf = (key: string) => key.slice(0, key.lastIndexOf('/'));

/** Members a tenant's report sends beyond the spec's, two of them promoted. */
const PROMOTED = [
  { name: 'accountCode', type: 'string' },
  { name: 'recorded', type: 'boolean' },
] as const;
const SUMMARY_FIELDS = ['userName', 'userNum', 'calls', 'ans', 'ref', 'lost', 'ring', 'duration'];

describe('lake tables against the keys the export writes', () => {
  let root: string;
  let store: LocalDirectoryStore;
  const DAYS = ['2026-06-01', '2026-06-02'];
  const SUMMARY_DAY = '2026-06-02';

  beforeAll(async () => {
    // Prepare: a real export (Parquet and gzip CSV) and a real run record into a directory.
    root = await mkdtemp(join(tmpdir(), 'catalog-'));
    store = new LocalDirectoryStore(root);
    await exportReportResult({
      source: resultStreamOf(
        callsOn(DAYS, 3, 'c').map((r, i) => ({
          ...r,
          accountCode: `A${i}`,
          recorded: i % 2 === 0,
          queue: i,
        })),
      ),
      store,
      reportId: 'rep-2',
      prefix: LOCATION.prefix,
      csvGzip: true,
      promotedColumns: { calls: PROMOTED },
    });
    // A summary report (no start among its fields) over one local day.
    await exportReportResult({
      source: resultStreamOf(
        [
          { userName: 'Ann', userNum: '201', calls: 4, ans: 3, ref: 0, lost: 1, ring: 12.5, duration: 300 },
          { userName: 'Bob', userNum: '202', calls: 1, ans: 1, ref: 0, lost: 0, ring: 2, duration: 45 },
        ] as never[],
        { displayFields: SUMMARY_FIELDS, requestId: 'req-sum' },
      ),
      store,
      reportId: 'rep-1',
      prefix: LOCATION.prefix,
      csvGzip: true,
      windowDates: [SUMMARY_DAY],
    });
    const record = {
      input: { date: '2026-06-02' },
      executionName: 'exec-1',
      startedAt: '2026-06-03T04:00:01.000Z',
    };
    await finalizeRun(record, {
      store,
      prefix: LOCATION.prefix,
      metrics: { add: () => undefined, flush: () => undefined },
      now: () => new Date('2026-06-03T04:05:00.000Z'),
    });
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it.each(['parquet', 'csv'] as const)(
    'resolves the %s partition template to the directories of the parts the export wrote',
    async (format) => {
      // Act
      const keys = (await listAll(store, `${LOCATION.prefix}/${LOCATION.dataset}/format=${format}/`)).map(
        (o) => o.key,
      );
      const parts = keys.filter((k) => /\/part-\d{5}\./.test(k));

      // Assess
      expect(parts.length).toBeGreaterThanOrEqual(DAYS.length);
      const expected = DAYS.map((dt) =>
        resolveTemplate(partitionKeyTemplate(LOCATION, format), { reportId: 'rep-2', dt }),
      );
      expect([...new Set(parts.map(dirOf))].sort()).toEqual(expected.sort());
    },
  );

  it('resolves the summaries template to the directories of the summary parts the export wrote', async () => {
    // Act
    const location = { ...LOCATION, dataset: DATASETS.summaries };
    const keys = (await listAll(store, `${LOCATION.prefix}/summaries/format=parquet/`)).map((o) => o.key);
    const table = summariesTableInput(LOCATION);

    // Assess
    const parts = keys.filter((k) => /\/part-\d{5}\.parquet$/.test(k));
    expect([...new Set(parts.map(dirOf))]).toEqual([
      resolveTemplate(partitionKeyTemplate(location, 'parquet'), { reportId: 'rep-1', dt: SUMMARY_DAY }),
    ]);
    expect(table.parameters['storage.location.template']).toBe(
      `s3://lake-bucket/${partitionKeyTemplate(location, 'parquet')}/`,
    );
    expect(table.storageDescriptor.location).toBe('s3://lake-bucket/tenant/lake/summaries/format=parquet/');
    expect(await listAll(store, `${LOCATION.prefix}/calls/format=parquet/report_id=rep-1/`)).toEqual([]);
  });

  it.each([
    {
      dataset: DATASETS.calls,
      reportId: 'rep-2',
      dt: '2026-06-01',
      input: () => callsTableInput(LOCATION, tableSchema({ promoted: PROMOTED })),
    },
    {
      dataset: DATASETS.summaries,
      reportId: 'rep-1',
      dt: SUMMARY_DAY,
      input: () => summariesTableInput(LOCATION),
    },
  ])(
    'declares exactly the columns of the $dataset Parquet files the export wrote, in their order and types',
    async ({ dataset, reportId, dt, input }) => {
      // Prepare: the file's own schema, read back from its footer.
      const key = `${LOCATION.prefix}/${dataset}/format=parquet/report_id=${reportId}/dt=${dt}/part-00000.parquet`;
      const bytes = await readFile(join(root, key));
      const schema = parquetMetadata(
        bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length),
      ).schema;
      const HIVE: Record<string, string> = {
        BYTE_ARRAY: 'string',
        INT32: 'int',
        DOUBLE: 'double',
        INT64: 'timestamp',
        BOOLEAN: 'boolean',
      };

      // Act
      const table = input();

      // Assess: every file column but the partition key report_id, with the Hive type of its physical type.
      const fileColumns = schema
        .slice(1)
        .filter((e) => e.name !== 'report_id')
        .map((e) => [e.name, HIVE[e.type as string]]);
      expect(table.storageDescriptor.columns.map((c) => [c.Name, c.Type])).toEqual(fileColumns);
      expect(table.partitionKeys.map((c) => c.Name)).toEqual(['report_id', 'dt']);
    },
  );

  it('points the Parquet table at the template and its root when the stack registers it', async () => {
    // Act
    const table = callsTableInput(LOCATION);
    const parquetKey = (await listAll(store, `${LOCATION.prefix}/`)).find((o) =>
      o.key.endsWith('.parquet'),
    )?.key;

    // Assess
    const template = table.parameters['storage.location.template'] as string;
    expect(template).toBe(`s3://lake-bucket/${partitionKeyTemplate(LOCATION, 'parquet')}/`);
    expect(
      `s3://lake-bucket/${parquetKey}`.startsWith(
        resolveTemplate(template, { reportId: 'rep-2', dt: '2026-06-01' }),
      ) ||
        `s3://lake-bucket/${parquetKey}`.startsWith(
          resolveTemplate(template, { reportId: 'rep-2', dt: '2026-06-02' }),
        ),
    ).toBe(true);
    expect(`s3://lake-bucket/${parquetKey}`.startsWith(table.storageDescriptor.location)).toBe(true);
    expect(table.storageDescriptor.location).toBe('s3://lake-bucket/tenant/lake/calls/format=parquet/');
  });

  it('resolves the run records template to the directory Finalize wrote the record to', async () => {
    // Act
    const keys = (await listAll(store, `${LOCATION.prefix}/runs/`)).map((o) => o.key);
    const table = runsTableInput(LOCATION);

    // Assess
    expect(keys).toHaveLength(1);
    expect(dirOf(keys[0] as string)).toBe(
      resolveTemplate(runRecordKeyTemplate(LOCATION), { dt: '2026-06-03' }),
    );
    expect(table.parameters['storage.location.template']).toBe(
      `s3://lake-bucket/${runRecordKeyTemplate(LOCATION)}/`,
    );
    expect(table.storageDescriptor.location).toBe('s3://lake-bucket/tenant/lake/runs/');
  });

  it('projects dt as a date from the configured start to NOW and report_id as the configured ids', () => {
    const p = callsTableInput(LOCATION).parameters;
    expect(p).toMatchObject({
      'projection.enabled': 'true',
      'projection.dt.type': 'date',
      'projection.dt.format': 'yyyy-MM-dd',
      'projection.dt.range': '2021-06-01,NOW',
      'projection.report_id.type': 'enum',
      'projection.report_id.values': 'rep-1,rep-2',
    });
    expect(runsTableInput(LOCATION).parameters).toMatchObject({ 'projection.dt.range': '2021-06-01,NOW' });
  });

  it('declares a run records column for every member of a run record, in lower case', () => {
    // Prepare: a record as Finalize builds it (its keys are the type's members at run time).
    const record = buildRunRecord(
      { input: { date: '2026-06-02' }, executionName: 'e', startedAt: '2026-06-03T04:00:00.000Z' },
      new Date('2026-06-03T04:00:01.000Z'),
    );

    // Assess
    expect(runRecordColumns().map((c) => c.Name)).toEqual(Object.keys(record).map((k) => k.toLowerCase()));
    const jobs = runRecordColumns().find((c) => c.Name === 'jobs')?.Type;
    expect(jobs).toMatch(/^array<struct<jobid:string,reportid:string,.*,cause:string>>$/);
  });
});

describe("ReportExportStack catalog with tableFormat 'hive'", () => {
  let template: Template;

  beforeAll(() => {
    const app = new App({ context: { ...cdkFeatureFlags(), 'aws:cdk:bundling-stacks': [] } });
    const stack = new ReportExportStack(app, 'ReportExport', {
      config: {
        workspaceId: 'ws',
        reports: [
          { id: 'rep-1', name: 'One' },
          { id: 'rep-2', name: 'Two' },
        ],
        timeZone: 'Europe/London',
        prefix: 'tenant/lake',
        dataStartDate: '2021-06-01',
        tableFormat: 'hive',
      },
    });
    template = Template.fromStack(stack);
  }, 60_000);

  type Column = { Name: string; Type: string; Comment: string };
  type TableInput = {
    Name: string;
    StorageDescriptor: { Columns: Column[]; SerdeInfo: unknown };
    PartitionKeys: Column[];
    Parameters: Record<string, unknown>;
  };
  type TableResource = { Properties: { TableInput: TableInput } };
  function table(name: string): TableInput {
    const found = (Object.values(template.findResources('AWS::Glue::Table')) as TableResource[]).find(
      (t) => t.Properties.TableInput.Name === name,
    );
    if (found === undefined) throw new Error(`no table ${name}`);
    return found.Properties.TableInput;
  }

  it('registers exactly the Parquet tables (calls, summaries) and the run records table, no CSV table', () => {
    const names = (Object.values(template.findResources('AWS::Glue::Table')) as TableResource[]).map(
      (t) => t.Properties.TableInput.Name,
    );
    expect(names.sort()).toEqual(['calls', 'runs', 'summaries']);
    template.resourceCountIs('AWS::Glue::Database', 1);
  });

  it("takes the Parquet table's columns and partition keys from the schema module", () => {
    const calls = table('calls');
    const asGlue = (cs: { Name: string; Type: string; Comment: string }[]) =>
      cs.map((c) => ({ Name: c.Name, Type: c.Type, Comment: c.Comment }));
    expect(asGlue(calls.StorageDescriptor.Columns)).toEqual(glueColumns('parquet'));
    expect(asGlue(calls.PartitionKeys)).toEqual(gluePartitionKeys());
    expect(calls.StorageDescriptor.SerdeInfo).toEqual({
      SerializationLibrary: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe',
    });
  });

  it.each(['calls', 'summaries', 'runs'])(
    'projects dt of %s from the configured dataStartDate to NOW, not from an early default',
    (name) => {
      expect(table(name).Parameters).toMatchObject({
        'projection.dt.type': 'date',
        'projection.dt.range': '2021-06-01,NOW',
      });
    },
  );

  it('keeps the Hive tables when they leave the stack, so that the move to Iceberg can create tables of the same names', () => {
    const kept = Object.values(template.findResources('AWS::Glue::Table'))
      .filter((t) => ['calls', 'summaries'].includes((t as TableResource).Properties.TableInput.Name))
      .map((t) => [
        (t as { DeletionPolicy?: string }).DeletionPolicy,
        (t as { UpdateReplacePolicy?: string }).UpdateReplacePolicy,
      ]);
    expect(kept).toEqual([
      ['Retain', 'Retain'],
      ['Retain', 'Retain'],
    ]);
    template.resourceCountIs('AWS::Glue::TableOptimizer', 0);
  });

  it('reads run records with the Hive JSON SerDe', () => {
    expect(table('runs').StorageDescriptor.SerdeInfo).toEqual({
      SerializationLibrary: 'org.apache.hive.hcatalog.data.JsonSerDe',
    });
  });
});
