import type { SchemaElement } from 'hyparquet';
import type { ResultRow } from '../spec/types';

/**
 * Version of the output schema, written to every manifest and to Parquet key-value metadata.
 * Bump it when a column is added, removed, renamed or retyped. Readers take the versions
 * together by column name (DuckDB `union_by_name`, Athena over Parquet): a column a file
 * lacks reads as NULL.
 *
 * 1: the spec's members, `start_utc`, lineage. 2: `extra` (members the schema does not know).
 */
export const SCHEMA_VERSION = 2;

/** How a column is typed; every format's type is derived from this. */
export const COLUMN_KINDS = {
  string: 'string',
  int32: 'int32',
  double: 'double',
  /** Wall-clock time in the report's zone, no offset: TIMESTAMP(MILLIS, isAdjustedToUTC=false). */
  localTimestamp: 'localTimestamp',
  /** An instant: TIMESTAMP(MILLIS, isAdjustedToUTC=true). */
  utcTimestamp: 'utcTimestamp',
} as const;
export type ColumnKind = (typeof COLUMN_KINDS)[keyof typeof COLUMN_KINDS];

/** Where a column's value comes from. */
export type ColumnSource =
  | { from: 'member'; member: keyof ResultRow }
  | { from: 'startUtc' }
  | { from: 'reportId' }
  | { from: 'requestId' }
  /** The row's members that no column takes, as one JSON object text. */
  | { from: 'otherMembers' };

/** One output column. */
export interface ColumnDefinition {
  readonly name: string;
  readonly kind: ColumnKind;
  readonly nullable: boolean;
  readonly description: string;
  readonly source: ColumnSource;
  /**
   * What a `string` column's text is, when it is more than text: `json` is annotated JSON
   * in Parquet (logical and converted type), and stays a string everywhere else.
   */
  readonly content?: 'json';
}

const member = (name: keyof ResultRow, kind: ColumnKind, description: string): ColumnDefinition => ({
  name,
  kind,
  nullable: true,
  description,
  source: { from: 'member', member: name },
});

/** Name of the column that keeps the members no other column takes. */
export const EXTRA_COLUMN = 'extra';

/**
 * The result-row columns, listed once. Order is the spec's row order, then the derived
 * `start_utc`, then lineage, then `extra`. Member columns are nullable because the service omits
 * members that do not apply to a row.
 */
export const COLUMNS: readonly ColumnDefinition[] = [
  member('connId', 'string', 'Connection id (GUID) of the call.'),
  member('start', 'localTimestamp', "Call start, wall-clock time in the report's time zone (no offset)."),
  member('userName', 'string', 'Name of the user.'),
  member('userNum', 'string', 'Number of the user.'),
  member('cli', 'string', 'Calling line identity.'),
  member('cliName', 'string', 'Name of the calling line.'),
  member('hgNum', 'string', 'Hunt group number.'),
  member('hgName', 'string', 'Hunt group name.'),
  member('callType', 'int32', 'Call type (opaque integer code).'),
  member('callDir', 'int32', 'Call direction (opaque integer code).'),
  member('ans', 'int32', 'Answered count.'),
  member('ref', 'int32', 'Refused count.'),
  member('lost', 'int32', 'Lost count.'),
  member('ring', 'double', 'Ring time.'),
  member('duration', 'double', 'Call duration.'),
  member('calledUserNum', 'string', 'Number of the called user.'),
  member('calledUserName', 'string', 'Name of the called user.'),
  member('callUserName', 'string', 'Name of the calling user.'),
  member('callUserNum', 'string', 'Number of the calling user.'),
  member('docId', 'string', 'Document id (GUID) of the record.'),
  {
    name: 'start_utc',
    kind: 'utcTimestamp',
    nullable: true,
    description: "Call start as an instant, `start` converted with the report's timeZoneId.",
    source: { from: 'startUtc' },
  },
  {
    name: 'report_id',
    kind: 'string',
    nullable: false,
    description: 'Lineage: the report the row was exported from.',
    source: { from: 'reportId' },
  },
  {
    name: 'request_id',
    kind: 'string',
    nullable: false,
    description: 'Lineage: the report run (request id) that produced the row.',
    source: { from: 'requestId' },
  },
  // Last, so that CSV readers that map fields by position (Athena's OpenCSVSerDe) read the
  // files written before it with every earlier column in place and this one NULL.
  {
    name: EXTRA_COLUMN,
    kind: 'string',
    content: 'json',
    nullable: true,
    description:
      "The row's members that have no column, as a JSON object text in the order sent, each value exactly as sent (numbers keep their digits); NULL when there are none.",
    source: { from: 'otherMembers' },
  },
];

/** Name of the partition column; it lives in the object key, not in the files. */
export const PARTITION_COLUMN = 'dt';

/**
 * The table's partition keys, in key order (`report_id=<id>/dt=YYYY-MM-DD`). `report_id`
 * is also written into the files as a lineage column, but a Glue/Athena table must not
 * declare a partition key as a data column too (Athena rejects the table), so
 * `glueColumns()` leaves it out and the partition value fills it when queried.
 */
export const PARTITION_KEYS = ['report_id', PARTITION_COLUMN] as const;

/** Members of a result row that map to a column. */
export const KNOWN_MEMBERS: ReadonlySet<string> = new Set(
  COLUMNS.flatMap((c) => (c.source.from === 'member' ? [c.source.member] : [])),
);

/** Index of the `start` column, used by the partitioner. */
export const START_COLUMN_INDEX = COLUMNS.findIndex((c) => c.name === 'start');

/** The CSV header line's fields, in column order. */
export function csvHeader(): string[] {
  return COLUMNS.map((c) => c.name);
}

const GLUE_TYPES: Record<ColumnKind, string> = {
  string: 'string',
  int32: 'int',
  double: 'double',
  localTimestamp: 'timestamp',
  utcTimestamp: 'timestamp',
};

/** A column as Glue's `Column` (name, type, comment). */
export interface GlueColumn {
  Name: string;
  Type: string;
  Comment: string;
}

/**
 * Glue table data columns (Hive types), derived from the column list, without the
 * partition keys (`report_id`, `dt`: see `gluePartitionKeys()`).
 *
 * For `csv` every column is `string`: Athena's OpenCSVSerDe (the SerDe that reads quoted
 * fields) parses TIMESTAMP only as epoch milliseconds and cannot read an empty field as
 * a number, so typed columns would fail on our ISO timestamps and NULLs; cast in a view.
 */
export function glueColumns(format: 'parquet' | 'csv' = 'parquet'): GlueColumn[] {
  const keys: readonly string[] = PARTITION_KEYS;
  return COLUMNS.filter((c) => !keys.includes(c.name)).map((c) => ({
    Name: c.name,
    Type: format === 'csv' ? 'string' : GLUE_TYPES[c.kind],
    Comment: c.description,
  }));
}

/** Glue partition keys, in the order of the key layout. */
export function gluePartitionKeys(): GlueColumn[] {
  const report = COLUMNS.find((c) => c.name === 'report_id') as ColumnDefinition;
  return [
    { Name: 'report_id', Type: 'string', Comment: report.description },
    {
      Name: PARTITION_COLUMN,
      Type: 'string',
      Comment: "Local calendar date (YYYY-MM-DD) of `start` in the report's time zone.",
    },
  ];
}

function parquetElement(c: ColumnDefinition): SchemaElement {
  const repetition_type = c.nullable ? 'OPTIONAL' : 'REQUIRED';
  switch (c.kind) {
    case 'string':
      // JSON: a UTF-8 BYTE_ARRAY holding one JSON value (parquet-format LogicalTypes.md,
      // "JSON"), with the converted type too for readers that know only that.
      return {
        name: c.name,
        type: 'BYTE_ARRAY',
        converted_type: c.content === 'json' ? 'JSON' : 'UTF8',
        logical_type: { type: c.content === 'json' ? 'JSON' : 'STRING' },
        repetition_type,
      };
    case 'int32':
      return { name: c.name, type: 'INT32', repetition_type };
    case 'double':
      return { name: c.name, type: 'DOUBLE', repetition_type };
    case 'localTimestamp':
      // The converted type too: parquet-format's LogicalTypes.md ("Deprecated timestamp
      // ConvertedType") says writers *must* annotate local timestamps with the legacy
      // annotation, and readers built on parquet-java <= 1.11 (Spark 3.1 in Glue 3.0) read
      // only it. Readers that know the logical type (DuckDB, Athena engine 3, arrow) still
      // read `start` as a local timestamp.
      return {
        name: c.name,
        type: 'INT64',
        converted_type: 'TIMESTAMP_MILLIS',
        logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: false, unit: 'MILLIS' },
        repetition_type,
      };
    case 'utcTimestamp':
      return {
        name: c.name,
        type: 'INT64',
        converted_type: 'TIMESTAMP_MILLIS',
        logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
        repetition_type,
      };
  }
}

/** The Parquet schema (root first), derived from the column list. */
export function parquetSchema(): SchemaElement[] {
  return [{ name: 'schema', num_children: COLUMNS.length }, ...COLUMNS.map(parquetElement)];
}
