import type { ResultRow } from '../spec/types';
import { EXPORT_ERROR_CODES, ExportConfigError, RowConversionError } from './errors';
import { COLUMNS, type ColumnDefinition, KNOWN_MEMBERS } from './schema';
import { localDate, parseLocalTime, type ZoneConverter } from './time-zone';

/** A cell value as buffered: strings, numbers (timestamps as epoch ms), or null. */
export type CellValue = string | number | null;

/** What to do with a row member the schema does not know. */
export const UNKNOWN_MEMBER_POLICIES = { warn: 'warn', fail: 'fail' } as const;
export type UnknownMemberPolicy = (typeof UNKNOWN_MEMBER_POLICIES)[keyof typeof UNKNOWN_MEMBER_POLICIES];

/** Receives warnings; never given row values, only member names and counts. */
export interface ExportLogger {
  warn(message: string, data?: Record<string, unknown>): void;
  /** Progress: one line per phase with its duration. */
  info?(message: string, data?: Record<string, unknown>): void;
}

/** A buffered column: values (null where absent), or epoch ms in a Float64Array (never null). */
export type ColumnValues = CellValue[] | Float64Array;

const INITIAL_TIMESTAMP_CAPACITY = 1_024;

function emptyColumns(): ColumnValues[] {
  // Timestamps are never null (start is required) and are not small integers: a typed
  // array avoids one heap number per value, the largest source of garbage per row.
  return COLUMNS.map((c) =>
    c.kind === 'localTimestamp' || c.kind === 'utcTimestamp'
      ? new Float64Array(INITIAL_TIMESTAMP_CAPACITY)
      : [],
  );
}

/** Rows of one partition, held column by column until they are written as a row group. */
export class ColumnBuffer {
  columns: ColumnValues[] = emptyColumns();
  rows = 0;

  /** Doubles a typed column's capacity and returns it. */
  grow(index: number): Float64Array {
    const old = this.columns[index] as Float64Array;
    const bigger = new Float64Array(old.length * 2);
    bigger.set(old);
    this.columns[index] = bigger;
    return bigger;
  }

  /** Drops the rows and the memory they held (an idle partition keeps almost nothing). */
  clear(): void {
    this.columns = emptyColumns();
    this.rows = 0;
  }
}

export interface RowMapperOptions {
  reportId: string;
  requestId: string;
  zone: ZoneConverter;
  unknownMembers?: UnknownMemberPolicy;
  logger?: ExportLogger;
}

type Converter = (row: ResultRow, localMs: number, utcMs: number) => CellValue;

/** Maps source rows onto the column list, computing `dt`, `start_utc` and lineage. */
export class RowMapper {
  readonly #converters: Converter[];
  readonly #policy: UnknownMemberPolicy;
  readonly #logger: ExportLogger | undefined;
  readonly #zone: ZoneConverter;
  readonly #warned = new Set<string>();
  #rowIndex = 0;
  #lastDay = Number.NaN;
  #lastDate = '';

  constructor(options: RowMapperOptions) {
    const policy = options.unknownMembers ?? 'warn';
    if (policy !== 'warn' && policy !== 'fail') {
      throw new ExportConfigError(`unknownMembers must be 'warn' or 'fail', got ${String(policy)}`);
    }
    this.#policy = policy;
    this.#logger = options.logger;
    this.#zone = options.zone;
    this.#converters = COLUMNS.map((c) => this.#converter(c, options));
  }

  /** Members seen that the schema does not know (warn policy). */
  get unknownMembers(): readonly string[] {
    return [...this.#warned];
  }

  /** Appends the row to the buffer `target` picks for its partition date; returns that date. */
  append(row: ResultRow, target: ColumnBuffer | ((dt: string) => ColumnBuffer)): string {
    const index = this.#rowIndex++;
    for (const key in row) {
      if (!KNOWN_MEMBERS.has(key)) this.#unknown(key, index);
    }
    const start = row.start;
    const localMs = typeof start === 'string' ? parseLocalTime(start) : undefined;
    if (localMs === undefined) {
      throw new RowConversionError(
        EXPORT_ERROR_CODES.rowInvalid,
        `Row ${index}: start is missing or not a date-time without offset; it is needed for the partition`,
      );
    }
    const utcMs = this.#zone.toUtc(localMs);
    // Rows arrive mostly in time order: reuse the last day's date text.
    const day = Math.floor(localMs / 86_400_000);
    if (day !== this.#lastDay) {
      this.#lastDay = day;
      this.#lastDate = localDate(localMs);
    }
    const dt = this.#lastDate;
    const buffer = typeof target === 'function' ? target(dt) : target;
    const converters = this.#converters;
    const columns = buffer.columns;
    const at = buffer.rows;
    for (let i = 0; i < converters.length; i++) {
      const value = (converters[i] as Converter)(row, localMs, utcMs);
      const column = columns[i] as ColumnValues;
      if (column instanceof Float64Array) {
        (at < column.length ? column : buffer.grow(i))[at] = value as number;
      } else {
        column.push(value);
      }
    }
    buffer.rows = at + 1;
    return dt;
  }

  #unknown(key: string, index: number): void {
    if (this.#policy === 'fail') {
      throw new RowConversionError(
        EXPORT_ERROR_CODES.unknownMember,
        `Row ${index}: member ${JSON.stringify(key)} is not in the output schema (unknownMembers=fail)`,
      );
    }
    if (!this.#warned.has(key)) {
      this.#warned.add(key);
      this.#logger?.warn('Row member not in the output schema is ignored', { member: key, firstRow: index });
    }
  }

  #converter(c: ColumnDefinition, options: RowMapperOptions): Converter {
    const source = c.source;
    if (source.from === 'reportId') return () => options.reportId;
    if (source.from === 'requestId') return () => options.requestId;
    if (source.from === 'startUtc') return (_row, _local, utc) => utc;
    const name = source.member;
    const rowIndex = () => this.#rowIndex - 1;
    switch (c.kind) {
      case 'localTimestamp':
        return (_row, local) => local;
      case 'string':
        return (row) => {
          const v: unknown = row[name];
          if (typeof v === 'string') return v;
          if (v === undefined || v === null) return null;
          if (typeof v === 'number' || typeof v === 'boolean') return String(v);
          throw invalid(rowIndex(), name, 'a string');
        };
      case 'int32':
        return (row) => {
          const v = toNumber(row[name]);
          if (v === null) return null;
          if (!Number.isInteger(v) || v < -2_147_483_648 || v > 2_147_483_647) {
            throw invalid(rowIndex(), name, 'a 32-bit integer');
          }
          return v;
        };
      case 'double':
        return (row) => {
          const v = toNumber(row[name]);
          if (v === null) return null;
          if (!Number.isFinite(v)) throw invalid(rowIndex(), name, 'a finite number');
          return v;
        };
      case 'utcTimestamp':
        throw new ExportConfigError(`Column ${c.name}: a member cannot be a UTC timestamp`);
    }
  }
}

function toNumber(v: unknown): number | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'number') return v;
  // The notes say some numbers arrive as strings; accept the numeric ones.
  if (typeof v === 'string' && v.trim() !== '') return Number(v);
  return Number.NaN;
}

function invalid(index: number, member: string, expected: string): RowConversionError {
  return new RowConversionError(EXPORT_ERROR_CODES.rowInvalid, `Row ${index}: ${member} is not ${expected}`);
}
