import {
  CALLS_SCHEMA,
  DATASETS,
  type GlueColumn,
  glueColumns,
  gluePartitionKeys,
  type OutputFormat,
  PARTITION_COLUMN,
  type PromotedColumn,
  partitionPrefix,
  type TableSchema,
  TENANT_COLUMN,
  tableSchema,
} from '../export';
import type { ExecutionInput } from '../workflow';
import { type RunRecord, type RunRecordJob, runRecordKey } from '../workflow';

/**
 * Glue table definitions of the lake, as plain data (no CDK types: the tests compare them
 * with the keys the export writes). Columns come from lib/export/schema.ts and the run
 * record's type; key templates come from the functions the export and Finalize write keys
 * with, called with Athena's `${...}` placeholders instead of values.
 */

/** Athena's placeholders in `storage.location.template`. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: Athena's literal placeholder syntax, not a template.
export const PLACEHOLDERS = { reportId: '${report_id}', dt: '${dt}', tenant: '${tenant}' } as const;

/** Where the lake lives in S3 and what Athena may project. */
export interface LakeLocation {
  /** Bucket name (a CDK token in the stack, a literal in tests). */
  readonly bucket: string;
  readonly prefix: string;
  readonly dataset: string;
  /** `report_id` values of the projection: the configured reports. */
  readonly reportIds: readonly string[];
  /**
   * First `dt` of the projection (YYYY-MM-DD): the deployment's first exported day. Athena
   * enumerates every day from here to NOW for a query without a `dt` filter, so it is
   * never an arbitrary early default.
   */
  readonly dataStartDate: string;
  /**
   * A multi-tenant lake: the run records are under `runs/tenant=<t>/`.
   * @default false
   */
  readonly tenants?: boolean;
}

/** A Glue `TableInput` (the members this project sets). */
export interface LakeTableInput {
  readonly name: string;
  readonly description: string;
  readonly tableType: 'EXTERNAL_TABLE';
  readonly parameters: Record<string, string>;
  readonly partitionKeys: GlueColumn[];
  readonly storageDescriptor: {
    readonly location: string;
    readonly columns: GlueColumn[];
    readonly inputFormat: string;
    readonly outputFormat: string;
    readonly serdeInfo: { serializationLibrary: string; parameters?: Record<string, string> };
  };
}

/** Key prefix (no trailing slash) of every partition of a format, with placeholders. */
export function partitionKeyTemplate(l: LakeLocation, format: OutputFormat): string {
  return partitionPrefix(
    { prefix: l.prefix, dataset: l.dataset, reportId: PLACEHOLDERS.reportId, csvExtension: '.csv' },
    format,
    PLACEHOLDERS.dt,
  );
}

/**
 * Key prefix (no trailing slash) of a day's run records, with the `dt` placeholder (and the
 * `tenant` one in a multi-tenant lake).
 */
export function runRecordKeyTemplate(l: Pick<LakeLocation, 'prefix' | 'tenants'>): string {
  // runRecordKey takes the date from startedAt's first ten characters.
  const probe = 'R'.repeat(8);
  const key = runRecordKey(l.prefix, {
    runId: probe,
    startedAt: `${'D'.repeat(10)}T00:00:00Z`,
    ...(l.tenants === true ? { tenant: PLACEHOLDERS.tenant } : {}),
  });
  const suffix = `/${probe}.json`;
  if (!key.endsWith(suffix)) throw new Error(`runRecordKey changed shape: ${key}`);
  return key.slice(0, -suffix.length).replace('D'.repeat(10), PLACEHOLDERS.dt);
}

/** The table's root: the template's whole key segments before its first placeholder, with `/`. */
function rootOf(template: string): string {
  return template.slice(0, template.lastIndexOf('/', template.indexOf('${')) + 1);
}

function dtProjection(l: LakeLocation): Record<string, string> {
  return {
    [`projection.${PARTITION_COLUMN}.type`]: 'date',
    [`projection.${PARTITION_COLUMN}.format`]: 'yyyy-MM-dd',
    [`projection.${PARTITION_COLUMN}.range`]: `${l.dataStartDate},NOW`,
    [`projection.${PARTITION_COLUMN}.interval`]: '1',
    [`projection.${PARTITION_COLUMN}.interval.unit`]: 'DAYS',
  };
}

/**
 * The analytics table over the Parquet parts. `report_id` is projected as an enum of the
 * configured reports (the workflow exports no others), so a query over every report
 * needs no `WHERE report_id = ...`, which an `injected` projection would demand.
 */
export function callsTableInput(l: LakeLocation, schema: TableSchema = CALLS_SCHEMA): LakeTableInput {
  return datasetTableInput(
    { ...l, dataset: schema.dataset },
    schema,
    'report-export: one row per call record, Parquet, partitioned by report_id and local date dt',
  );
}

/** The summaries table: the rows of summary reports (no start), one partition per report and local day. */
export function summariesTableInput(
  l: LakeLocation,
  promoted: readonly PromotedColumn[] = [],
): LakeTableInput {
  const schema = tableSchema({ dataset: DATASETS.summaries, promoted });
  return datasetTableInput(
    { ...l, dataset: schema.dataset },
    schema,
    'report-export: the rows of summary reports (totals per user, hunt group ...), Parquet, partitioned by report_id and the local day dt they cover',
  );
}

function datasetTableInput(l: LakeLocation, schema: TableSchema, description: string): LakeTableInput {
  const template = partitionKeyTemplate(l, 'parquet');
  return {
    name: schema.dataset,
    description,
    tableType: 'EXTERNAL_TABLE',
    parameters: {
      classification: 'parquet',
      'projection.enabled': 'true',
      'projection.report_id.type': 'enum',
      'projection.report_id.values': l.reportIds.join(','),
      ...dtProjection(l),
      'storage.location.template': `s3://${l.bucket}/${template}/`,
    },
    partitionKeys: gluePartitionKeys(schema.dataset),
    storageDescriptor: {
      location: `s3://${l.bucket}/${rootOf(template)}`,
      columns: glueColumns('parquet', schema),
      inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
      outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
      serdeInfo: { serializationLibrary: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe' },
    },
  };
}

// Hive types of the run record's members; `{ [K in keyof T]: ... }` makes the compiler
// reject a member added to or removed from the record without a column here. Not the
// tenant: a multi-tenant lake's runs table has it as its partition (the same value), and a
// single-tenant one has none.
const INPUT_TYPES: { [K in Exclude<keyof Required<ExecutionInput>, 'tenant'>]: string } = {
  scheduledTime: 'string',
  intraday: 'boolean',
  date: 'string',
  from: 'string',
  to: 'string',
  preset: 'string',
  reports: 'array<string>',
  filterId: 'string',
  additionalConditions: 'array<struct<fieldname:string,operator:string,values:array<string>>>',
  forceReplace: 'boolean',
  parentRunId: 'string',
  contacts: 'string',
};
const QUALITY_TYPE = 'struct<nullconnid:int,duplicateconnid:int,negativetime:int,flagoutofrange:int>';
const TOTALS_TYPE = 'struct<ans:bigint,ref:bigint,lost:bigint,ring:double,duration:double>';
const PARTIAL_DAYS_TYPE = 'array<struct<dt:string,cutoff:string>>';
const JOB_TYPES: { [K in keyof RunRecordJob]: string } = {
  jobId: 'string',
  reportId: 'string',
  reportName: 'string',
  status: 'string',
  rows: 'bigint',
  partitions: 'int',
  files: 'int',
  bytes: 'bigint',
  requests: 'int',
  polls: 'int',
  splits: 'int',
  retries: 'int',
  held: 'array<struct<dt:string,publishedrows:bigint,rows:bigint>>',
  heldCount: 'int',
  mismatches: `array<struct<requestid:string,differences:array<string>,service:${TOTALS_TYPE},rows:${TOTALS_TYPE}>>`,
  mismatchCount: 'int',
  quality: QUALITY_TYPE,
  partialDays: PARTIAL_DAYS_TYPE,
  snapshot: 'struct<table:string,snapshotid:bigint>',
  commits: 'int',
  commit:
    'struct<status:string,runs:int,invalidruns:int,snapshots:array<struct<table:string,snapshotid:bigint>>,reason:string,superseded:int>',
  firstDate: 'string',
  lastDate: 'string',
  durationMs: 'bigint',
  error: 'string',
  cause: 'string',
};
const SYNC_ERROR_TYPE = 'struct<name:string,code:string,message:string>';
const DIRECTORY_TYPE = `struct<directoryid:string,directoryname:string,status:string,items:int,newversions:int,closedversions:int,deletions:int,phones:int,error:${SYNC_ERROR_TYPE}>`;
const CONTACTS_TYPE = `struct<status:string,directories:array<${DIRECTORY_TYPE}>,error:${SYNC_ERROR_TYPE}>`;
const struct = (types: Record<string, string>) =>
  `struct<${Object.entries(types)
    .map(([k, t]) => `${k.toLowerCase()}:${t}`)
    .join(',')}>`;
const RUN_RECORD_TYPES: { [K in keyof RunRecord]: string } = {
  runId: 'string',
  parentRunId: 'string',
  executionName: 'string',
  status: 'string',
  mode: 'string',
  input: struct(INPUT_TYPES),
  dateFrom: 'string',
  dateTo: 'string',
  startedAt: 'string',
  finishedAt: 'string',
  durationMs: 'bigint',
  jobs: `array<${struct(JOB_TYPES)}>`,
  jobCount: 'int',
  failedJobs: 'int',
  rows: 'bigint',
  partitions: 'int',
  files: 'int',
  bytes: 'bigint',
  requests: 'int',
  polls: 'int',
  splits: 'int',
  retries: 'int',
  heldPartitions: 'int',
  summaryMismatches: 'int',
  quality: QUALITY_TYPE,
  partialDays: PARTIAL_DAYS_TYPE,
  newestDate: 'string',
  continued: 'boolean',
  error: 'string',
  cause: 'string',
  contacts: CONTACTS_TYPE,
};

/** Run record columns: Athena names columns in lower case; the JSON SerDe matches keys case-insensitively. */
export function runRecordColumns(): GlueColumn[] {
  return Object.entries(RUN_RECORD_TYPES).map(([member, type]) => ({
    Name: member.toLowerCase(),
    Type: type,
    Comment: `RunRecord.${member}`,
  }));
}

/**
 * One row per execution, from Finalize's JSON lines; `dt` is the UTC date the execution
 * started. In a multi-tenant lake, `tenant` is a partition too, projected as `injected`:
 * tenants come and go without a deploy, so no enum can list them, and a projected table
 * cannot leave one partition column unprojected. A query names its tenant
 * (`WHERE tenant = 'acme'`); across tenants, the Iceberg tables answer (lib/infra/README.md).
 */
export function runsTableInput(l: LakeLocation): LakeTableInput {
  const template = runRecordKeyTemplate(l);
  const tenants = l.tenants === true;
  return {
    name: 'runs',
    description: tenants
      ? 'report-export: one run record per execution (JSON lines), partitioned by tenant (name it in every query) and UTC start date dt'
      : 'report-export: one run record per execution (JSON lines), partitioned by UTC start date dt',
    tableType: 'EXTERNAL_TABLE',
    parameters: {
      classification: 'json',
      'projection.enabled': 'true',
      ...(tenants ? { [`projection.${TENANT_COLUMN}.type`]: 'injected' } : {}),
      ...dtProjection(l),
      'storage.location.template': `s3://${l.bucket}/${template}/`,
    },
    partitionKeys: [
      ...(tenants
        ? [{ Name: TENANT_COLUMN, Type: 'string', Comment: 'The tenant the execution ran for (its id).' }]
        : []),
      { Name: PARTITION_COLUMN, Type: 'string', Comment: 'UTC date the execution started (YYYY-MM-DD).' },
    ],
    storageDescriptor: {
      location: `s3://${l.bucket}/${rootOf(template)}`,
      columns: runRecordColumns(),
      inputFormat: 'org.apache.hadoop.mapred.TextInputFormat',
      outputFormat: 'org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat',
      // The Hive JSON SerDe, not OpenX: Athena documents non-deterministic results for OpenX.
      serdeInfo: { serializationLibrary: 'org.apache.hive.hcatalog.data.JsonSerDe' },
    },
  };
}
