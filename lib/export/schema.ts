import type { SchemaElement } from 'hyparquet';
import type { ResultRow } from '../spec';
import { ExportConfigError } from './errors';

/**
 * Version of the output schema, written to every manifest and to Parquet key-value metadata.
 * Bump it when a column is added, removed, renamed or retyped. Readers take the versions
 * together by column name (DuckDB `union_by_name`, Athena over Parquet): a column a file
 * lacks reads as NULL.
 *
 * 1: the spec's members, `start_utc`, lineage. 2: `extra` (members the schema does not know).
 * 3: every column in lower snake_case (`conn_id`, `user_name`), the member's name in its
 * description; an Iceberg table renames its fields in place (same field ids). 4: `provisional`
 * (a day read before it ended in the report's zone), last; an Iceberg table appends it.
 */
export const SCHEMA_VERSION = 4;

/** How a column is typed; every format's type is derived from this. */
export const COLUMN_KINDS = {
  string: 'string',
  int32: 'int32',
  double: 'double',
  /** true/false: Parquet BOOLEAN. Only a promoted column has it. */
  boolean: 'boolean',
  /** Wall-clock time in the report's zone, no offset: TIMESTAMP(MILLIS, isAdjustedToUTC=false). */
  localTimestamp: 'localTimestamp',
  /** An instant: TIMESTAMP(MILLIS, isAdjustedToUTC=true). */
  utcTimestamp: 'utcTimestamp',
} as const;
export type ColumnKind = (typeof COLUMN_KINDS)[keyof typeof COLUMN_KINDS];

/** Where a column's value comes from. */
type ColumnSource =
  | { from: 'member'; member: keyof ResultRow }
  /** A member the spec does not document, promoted by the deployment's configuration. */
  | { from: 'promoted'; member: string }
  | { from: 'startUtc' }
  | { from: 'reportId' }
  | { from: 'requestId' }
  /** The row's members that no column takes, as one JSON object text. */
  | { from: 'otherMembers' }
  /** Whether the row's day had not ended in the report's zone when the service was read. */
  | { from: 'provisional' }
  /**
   * A value of another dataset's own record (a contact version's `full_name`, `valid_from`),
   * under the key `member`: that dataset's module fills it; the report rows' mapper never
   * sees such a column.
   */
  | { from: 'record'; member: string };

/** One output column. */
export interface ColumnDefinition {
  /** Lower snake_case: what Glue and Athena keep (Athena lowers every name it reads). */
  readonly name: string;
  /**
   * The name the column had before schema version 3 (the service's member name, camelCase),
   * when it differs: an Iceberg table's field of that name is renamed to `name` in place.
   */
  readonly formerName?: string;
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

/**
 * The column name of a member: lower snake_case, a word boundary before an upper-case letter
 * that follows a lower-case letter or a digit (`connId` -> `conn_id`, `calledUserNum` ->
 * `called_user_num`), or that starts a word after an acronym (`HTTPCode` -> `http_code`,
 * `queueID` -> `queue_id`); underscores and digits stay (`wait_2` stays, `leg2Id` -> `leg2_id`).
 */
export function columnName(member: string): string {
  return member
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

/** A column's description, ending with the member it holds (the service's name for it). */
function memberDescription(member: string, text: string): string {
  return `${text} The service's member ${member}.`;
}

/** The column of a member; its name as `columnName` makes it, the member's in its description. */
function memberColumn(
  memberName: string,
  kind: ColumnKind,
  text: string,
  source: ColumnSource,
): ColumnDefinition {
  const name = columnName(memberName);
  return {
    name,
    ...(name === memberName ? {} : { formerName: memberName }),
    kind,
    nullable: true,
    description: memberDescription(memberName, text),
    source,
  };
}

const member = (name: keyof ResultRow, kind: ColumnKind, description: string): ColumnDefinition =>
  memberColumn(name, kind, description, { from: 'member', member: name });

/** Name of the column that keeps the members no other column takes. */
const EXTRA_COLUMN = 'extra';

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
      "The row's members that have no column, as a JSON object text keyed by the service's member names in the order sent, each value exactly as sent (numbers keep their digits); NULL when there are none.",
    source: { from: 'otherMembers' },
  },
];

/** Name of the column that says a day was read before it ended. */
export const PROVISIONAL_COLUMN = 'provisional';

/**
 * `provisional`: true on every row of a day the service was read before that day ended in the
 * report's zone (an intraday refresh, or a window reaching today), so the day may still grow;
 * false once a run read it after it ended (settled). Last of every report dataset's columns,
 * after the promoted ones: a CSV reader mapping fields by position reads the files written
 * before it (schema version 3) with every other column in place and this one NULL, as an
 * Iceberg reader does (a field a data file lacks reads as NULL).
 */
const PROVISIONAL: ColumnDefinition = {
  name: PROVISIONAL_COLUMN,
  kind: 'boolean',
  nullable: false,
  description:
    "True when the row's day had not ended in the report's time zone when the service was read (an intraday refresh: the day may still grow); false once a run read the day after it ended (settled). NULL in files written before the column existed.",
  source: { from: 'provisional' },
};

/** Name of the partition column; it lives in the object key, not in the files. */
export const PARTITION_COLUMN = 'dt';

/**
 * Name of the tenant column of a multi-tenant lake's tables: the first partition key
 * (`tenant=<t>/`), and in an Iceberg table a required column written in every data file.
 */
export const TENANT_COLUMN = 'tenant';

/**
 * The table's partition keys, in key order (`report_id=<id>/dt=YYYY-MM-DD`). `report_id`
 * is also written into the files as a lineage column, but a Glue/Athena table must not
 * declare a partition key as a data column too (Athena rejects the table), so
 * `glueColumns()` leaves it out and the partition value fills it when queried.
 */
export const PARTITION_KEYS = ['report_id', PARTITION_COLUMN] as const;

/** Members of a result row that map to a column of the `calls` dataset (promoted ones aside). */
export const KNOWN_MEMBERS: ReadonlySet<string> = new Set(
  COLUMNS.flatMap((c) => (c.source.from === 'member' ? [c.source.member] : [])),
);

/**
 * The datasets (tables) of the lake. A result whose `request.displayFields` name `start` is a
 * call list and goes to `calls`; one without (totals per user, per hunt group ...) is a
 * summary of its job's window and goes to `summaries`, partitioned by the job's local day.
 */
export const DATASETS = { calls: 'calls', summaries: 'summaries' } as const;
export type Dataset = (typeof DATASETS)[keyof typeof DATASETS];

/** Types a deployment may give a promoted column, and the column kind each becomes. */
export const PROMOTED_TYPES = {
  string: 'string',
  int: 'int32',
  double: 'double',
  boolean: 'boolean',
  'timestamp-local': 'localTimestamp',
} as const satisfies Record<string, ColumnKind>;
export type PromotedType = keyof typeof PROMOTED_TYPES;

/**
 * A member the service sends that the spec does not document, made a typed column of a
 * dataset by configuration: its values leave `extra` for the column named after the member
 * (`columnName`: `queueName` -> `queue_name`).
 */
export interface PromotedColumn {
  /** The member's name, as the service sends it; the column's is its snake_case (`columnName`). */
  readonly name: string;
  readonly type: PromotedType;
}

/**
 * The columns of a file, whatever its dataset: all that the encoders and the derived schemas
 * (Parquet, CSV header, Glue columns) read. The report datasets' is a `TableSchema`; the
 * contact directories' (lib/export/contacts) carry their own.
 */
export interface ColumnSet {
  readonly columns: readonly ColumnDefinition[];
}

/** The columns of one dataset as a deployment configures it: what every file of it holds. */
export interface TableSchema extends ColumnSet {
  readonly dataset: Dataset;
  /** Members some column takes: all others go to `extra`. */
  readonly knownMembers: ReadonlySet<string>;
  /** Index of `start` (what partitions a call), -1 for a summary. */
  readonly startIndex: number;
  readonly promoted: readonly PromotedColumn[];
}

/** A member name whose column name Athena, Glue, DuckDB and Spark all take unquoted. */
const PROMOTED_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** Glue's longest column name. */
const MAX_COLUMN_NAME = 128;
/** Columns a summary row has no use for: it has no start (its `dt` is its job's day). */
const CALL_ONLY = new Set(['start', 'start_utc']);
/** More would not be a column list but a second schema: keep the rest in `extra`. */
const MAX_PROMOTED_COLUMNS = 100;

/**
 * The columns of `dataset` with the deployment's promoted columns: the spec's members,
 * `start_utc` (calls only), lineage, `extra`, the promoted columns in the order
 * declared, then `provisional` (PROVISIONAL). The promoted ones come after `extra` so that a CSV reader mapping fields by position (Athena's
 * OpenCSVSerDe) still reads every earlier column of files written before they were declared.
 * A promoted column's name is its member's `columnName` (`queueName` -> `queue_name`).
 * Rejects (ExportConfigError) a member name that is not a plain identifier, a column name
 * that another column already has (`connID` and `conn_id` both make `conn_id`; two members
 * `queueName` and `queue_name` both make `queue_name`: promote one, the other stays in
 * `extra`), or an unknown type.
 */
export function tableSchema(
  options: { dataset?: Dataset; promoted?: readonly PromotedColumn[] } = {},
): TableSchema {
  const dataset = options.dataset ?? DATASETS.calls;
  if (!Object.values(DATASETS).includes(dataset)) {
    throw new ExportConfigError(
      `dataset must be one of ${Object.values(DATASETS).join(', ')}, got ${String(dataset)}`,
    );
  }
  const promoted = options.promoted ?? [];
  if (promoted.length > MAX_PROMOTED_COLUMNS) {
    throw new ExportConfigError(`At most ${MAX_PROMOTED_COLUMNS} promoted columns, got ${promoted.length}`);
  }
  const base = dataset === DATASETS.calls ? COLUMNS : COLUMNS.filter((c) => !CALL_ONLY.has(c.name));
  const taken = new Map(
    [...base.map((c) => c.name), PROVISIONAL_COLUMN, PARTITION_COLUMN].map(
      (n) => [n, `column ${n}`] as const,
    ),
  );
  const extraColumns = promoted.map((p, i): ColumnDefinition => {
    const where = `promoted column ${i} (${JSON.stringify(p?.name)})`;
    if (typeof p?.name !== 'string' || !PROMOTED_NAME.test(p.name)) {
      throw new ExportConfigError(`${where}: the name must match ${PROMOTED_NAME.source}`);
    }
    const name = columnName(p.name);
    if (name.length > MAX_COLUMN_NAME) {
      throw new ExportConfigError(
        `${where}: its column name ${name} is longer than ${MAX_COLUMN_NAME} characters`,
      );
    }
    const existing = taken.get(name);
    if (existing !== undefined) {
      throw new ExportConfigError(
        `${where}: its column name is ${name}, which the ${dataset} dataset already has (${existing}); a column is named after its member in lower snake_case, so promote only one of the members that make it`,
      );
    }
    if (!Object.hasOwn(PROMOTED_TYPES, p.type)) {
      throw new ExportConfigError(
        `${where}: type must be one of ${Object.keys(PROMOTED_TYPES).join(', ')}, got ${JSON.stringify(p.type)}`,
      );
    }
    taken.set(name, `column ${name} of member ${p.name}`);
    return memberColumn(
      p.name,
      PROMOTED_TYPES[p.type],
      `A member (${p.type}) the spec does not document, promoted from extra by configuration.`,
      { from: 'promoted', member: p.name },
    );
  });
  const columns = [...base, ...extraColumns, PROVISIONAL];
  return {
    dataset,
    columns,
    knownMembers: new Set(
      columns.flatMap((c) =>
        c.source.from === 'member' || c.source.from === 'promoted' ? [c.source.member] : [],
      ),
    ),
    startIndex: columns.findIndex((c) => c.name === 'start'),
    promoted: promoted.map((p) => ({ name: p.name, type: p.type })),
  };
}

/** The `calls` dataset without promoted columns. */
export const CALLS_SCHEMA: TableSchema = tableSchema();

/** The CSV header line's fields, in column order. */
export function csvHeader(schema: ColumnSet = CALLS_SCHEMA): string[] {
  return schema.columns.map((c) => c.name);
}

const GLUE_TYPES: Record<ColumnKind, string> = {
  string: 'string',
  int32: 'int',
  double: 'double',
  boolean: 'boolean',
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
export function glueColumns(
  format: 'parquet' | 'csv' = 'parquet',
  schema: ColumnSet = CALLS_SCHEMA,
): GlueColumn[] {
  const keys: readonly string[] = PARTITION_KEYS;
  return schema.columns
    .filter((c) => !keys.includes(c.name))
    .map((c) => ({
      Name: c.name,
      Type: format === 'csv' ? 'string' : GLUE_TYPES[c.kind],
      Comment: c.description,
    }));
}

/** Glue partition keys, in the order of the key layout. */
export function gluePartitionKeys(dataset: Dataset = DATASETS.calls): GlueColumn[] {
  const report = COLUMNS.find((c) => c.name === 'report_id') as ColumnDefinition;
  return [
    { Name: 'report_id', Type: 'string', Comment: report.description },
    {
      Name: PARTITION_COLUMN,
      Type: 'string',
      Comment:
        dataset === DATASETS.calls
          ? "Local calendar date (YYYY-MM-DD) of `start` in the report's time zone."
          : "The local calendar day (YYYY-MM-DD) the summary covers, in the report's time zone.",
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
    case 'boolean':
      return { name: c.name, type: 'BOOLEAN', repetition_type };
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
export function parquetSchema(schema: ColumnSet = CALLS_SCHEMA): SchemaElement[] {
  return [{ name: 'schema', num_children: schema.columns.length }, ...schema.columns.map(parquetElement)];
}
