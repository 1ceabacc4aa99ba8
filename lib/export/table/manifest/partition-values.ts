import type {
  FieldSummary,
  IcebergPrimitive,
  IcebergSchema,
  ManifestEntry,
  PartitionSpec,
  PartitionValue,
} from '../metadata/types';

/**
 * Partition values: the manifest list's field summaries (bounds in Iceberg's single-value
 * binary serialization, ordered as Iceberg orders them) and the day numbers of the `dt`
 * partition (an Iceberg `date` is days since 1970-01-01).
 */

const utf8 = new TextEncoder();

/** Iceberg's single-value binary serialization of a partition value (the spec's Appendix D). */
export function singleValueBytes(type: IcebergPrimitive, value: unknown): Uint8Array {
  if (type === 'string' && typeof value === 'string') return utf8.encode(value);
  const out = new Uint8Array(type === 'int' || type === 'date' ? 4 : 8);
  const view = new DataView(out.buffer);
  if ((type === 'int' || type === 'date') && typeof value === 'number') view.setInt32(0, value, true);
  else if (
    (type === 'long' || type === 'timestamp' || type === 'timestamptz') &&
    (typeof value === 'bigint' || typeof value === 'number')
  )
    view.setBigInt64(0, BigInt(value), true);
  else if (type === 'double' && typeof value === 'number') view.setFloat64(0, value, true);
  else if (type === 'boolean' && typeof value === 'boolean') return Uint8Array.of(value ? 1 : 0);
  else throw new Error(`No single-value serialization of ${typeof value} as ${type}`);
  return out;
}

/** Orders partition values as Iceberg does: numbers by value, strings by code point (UTF-8 bytes). */
function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') return compareBytes(utf8.encode(a), utf8.encode(b));
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
  }
  return a.length - b.length;
}

/**
 * The manifest list's partition field summaries of a manifest's entries (all statuses, as
 * Iceberg's writer counts them): whether a value is null, and the lower and upper bounds.
 */
export function partitionSummaries(
  spec: PartitionSpec,
  entries: readonly ManifestEntry[],
  schema?: IcebergSchema,
): FieldSummary[] {
  return spec.fields.map((field) => {
    const type = partitionTypeOf(field.name, field['source-id'], schema);
    let containsNull = false;
    let lower: unknown;
    let upper: unknown;
    for (const e of entries) {
      const value = (e.data_file.partition as unknown as Record<string, unknown>)[field.name];
      if (value === null || value === undefined) {
        containsNull = true;
        continue;
      }
      if (lower === undefined || compareValues(value, lower) < 0) lower = value;
      if (upper === undefined || compareValues(value, upper) > 0) upper = value;
    }
    return {
      contains_null: containsNull,
      contains_nan: false,
      lower_bound: lower === undefined ? null : singleValueBytes(type, lower),
      upper_bound: upper === undefined ? null : singleValueBytes(type, upper),
    };
  });
}

/**
 * Our specs' partition types when no schema is given: `tenant`, `report_id` and
 * `directory_id` strings, `dt` a date.
 */
function partitionTypeOf(
  name: string,
  sourceId: number,
  schema: IcebergSchema | undefined,
): IcebergPrimitive {
  const source = schema?.fields.find((f) => f.id === sourceId);
  if (source !== undefined) return source.type;
  if (name === 'report_id' || name === 'tenant' || name === 'directory_id') return 'string';
  if (name === 'dt') return 'date';
  throw new Error(`The type of partition field ${name} needs the table schema`);
}

/**
 * Whether a manifest's partition field summary may hold `value` (a string, or an int or
 * date's number): within its bounds, as Iceberg orders them. A summary without bounds (or
 * none) may hold anything.
 */
export function summaryMayHold(
  summary: FieldSummary | undefined,
  type: 'string' | 'int' | 'date',
  value: string | number,
): boolean {
  const lower = summary?.lower_bound;
  const upper = summary?.upper_bound;
  if (lower == null || upper == null) return true;
  const bytes = singleValueBytes(type, value);
  const compare = type === 'string' ? compareBytes : (a: Uint8Array, b: Uint8Array) => int32(a) - int32(b);
  return compare(lower, bytes) <= 0 && compare(bytes, upper) <= 0;
}

const int32 = (bytes: Uint8Array): number =>
  new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getInt32(0, true);

/**
 * A partition tuple as one string, equal for equal tuples of either kind (a report's day:
 * tenant, report id, day; a directory: tenant, directory id), for counting and grouping.
 */
export function partitionKey(p: PartitionValue): string {
  const tenant = p.tenant ?? '';
  return 'directory_id' in p
    ? `d\u0000${tenant}\u0000${p.directory_id}`
    : `r\u0000${tenant}\u0000${p.report_id}\u0000${p.dt}`;
}

const DAY_MS = 86_400_000;
const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Days since 1970-01-01 of a calendar date `YYYY-MM-DD` (an Iceberg `date`). */
export function dateToDays(date: string): number {
  const m = DATE_PATTERN.exec(date);
  const ms = m === null ? Number.NaN : Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  if (Number.isNaN(ms) || daysToDate(ms / DAY_MS) !== date)
    throw new Error(`Not a calendar date YYYY-MM-DD: ${JSON.stringify(date)}`);
  return ms / DAY_MS;
}

/** The calendar date `YYYY-MM-DD` of days since 1970-01-01. */
export function daysToDate(days: number): string {
  if (!Number.isInteger(days)) throw new Error(`Not a day number: ${days}`);
  return new Date(days * DAY_MS).toISOString().slice(0, 10);
}
