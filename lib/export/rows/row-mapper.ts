import { rawMembersOf } from '../../api';
import { localDate, parseLocalTime, type ZoneConverter } from '../../calendar';
import type { ResultRow } from '../../spec';
import { EXPORT_ERROR_CODES, ExportConfigError, RowConversionError, RowOutsideWindowError } from '../errors';
import { TotalsCounter } from '../reconcile';
import { CALLS_SCHEMA, type ColumnDefinition, type TableSchema } from '../schema';
import { type OutsideWindowPolicy, UNKNOWN_MEMBER_POLICIES, type UnknownMemberPolicy } from '../types';
import { ArrayPool } from './array-pool';
import { ColumnBuffer, RunDictionaries, type StringMode } from './column-buffer';
import { QualityCounter } from './quality';
import { MAX_VALUE_DEPTH, nestsDeeperThan } from './value-depth';

interface RowMapperOptions {
  reportId: string;
  requestId: string;
  zone: ZoneConverter;
  /** The dataset's columns. Default: `calls` without promoted columns. */
  schema?: TableSchema;
  /**
   * The local day every row belongs to, for a schema without `start` (a summary of the job's
   * day); required then, refused otherwise.
   */
  day?: string;
  /**
   * The first local day (YYYY-MM-DD) that had not ended in the zone when the service was read:
   * rows of it and of later days are `provisional`. Without it every day is settled.
   */
  provisionalFrom?: string;
  /** Default 'keep': in the `extra` column. */
  unknownMembers?: UnknownMemberPolicy;
  /** The window rows must fall in; without it every date is accepted. */
  window?: {
    /** Local dates rows may fall on. */
    dates: ReadonlySet<string>;
    /** How errors and logs name the window, e.g. its instants. */
    label: string;
    /** Default 'fail'. */
    outside?: OutsideWindowPolicy;
  };
}

/**
 * Names of kept members listed for the log: a service that sent a new name per row must not
 * grow the run's memory with them (their values are in the rows, bounded like any text).
 */
const MAX_NAMES_LISTED = 100;

/** Sets one column of the row being appended (reserveRow was called). */
type Appender = (row: ResultRow, buffer: ColumnBuffer, localMs: number, utcMs: number) => void;

/**
 * Maps source rows onto the column list, computing `dt`, `start_utc` and lineage; members
 * no column takes go to `extra` as one JSON object text, each value as the service sent it
 * (its source text from the client, see `rawMembersOf`; a row from any other source gives
 * `JSON.stringify` of the value).
 */
export class RowMapper {
  /** The run's string dictionaries, shared by every buffer this mapper fills. */
  readonly dictionaries: RunDictionaries;
  /** Data-quality counts of the rows appended, per date. */
  readonly quality: QualityCounter;
  /** Sums of the service's summary members over every row read (dropped ones too). */
  readonly totals = new TotalsCounter();
  /** Arrays for the buffers, reused once released. */
  readonly pool = new ArrayPool();
  readonly #appenders: Appender[];
  readonly #policy: UnknownMemberPolicy;
  readonly #zone: ZoneConverter;
  readonly #known: ReadonlySet<string>;
  /** The day of every row (a summary), or undefined when `start` dates each row. */
  readonly #day: string | undefined;
  /** Names of the members kept in `extra`, in the order first seen (the first MAX_NAMES_LISTED). */
  readonly #kept = new Set<string>();
  /** `extra` of the row being appended. */
  #other: string | null = null;
  readonly #window: RowMapperOptions['window'];
  /** Rows dropped per date outside the window (outside=drop). */
  readonly #dropped = new Map<string, number>();
  #rowIndex = 0;
  #lastDay = Number.NaN;
  #lastDate = '';
  #lastInWindow = true;

  constructor(options: RowMapperOptions) {
    const policy = options.unknownMembers ?? UNKNOWN_MEMBER_POLICIES.keep;
    if (!Object.values(UNKNOWN_MEMBER_POLICIES).includes(policy)) {
      throw new ExportConfigError(`unknownMembers must be 'keep' or 'fail', got ${String(policy)}`);
    }
    this.#policy = policy;
    this.#zone = options.zone;
    this.#window = options.window;
    const schema = options.schema ?? CALLS_SCHEMA;
    if (schema.startIndex < 0 !== (options.day !== undefined)) {
      throw new ExportConfigError(
        schema.startIndex < 0
          ? `The ${schema.dataset} dataset has no start: the day its rows belong to is required`
          : 'A day for every row is only for a dataset without start',
      );
    }
    this.#day = options.day;
    this.#known = schema.knownMembers;
    this.dictionaries = new RunDictionaries(schema);
    this.quality = new QualityCounter({ calls: schema.startIndex >= 0 });
    this.#appenders = schema.columns.map((c, i) => this.#appender(c, i, options));
  }

  /** An empty buffer; string columns whose dictionary is still open are indexed. */
  newBuffer(): ColumnBuffer {
    const modes = this.dictionaries.columns.map((d): StringMode | undefined =>
      d === undefined ? undefined : d.open ? 'indexed' : 'text',
    );
    return new ColumnBuffer(this.dictionaries, { modes, pool: this.pool });
  }

  /** Rows dropped because their date is outside the window, per date (outside=drop). */
  get droppedRows(): ReadonlyMap<string, number> {
    return this.#dropped;
  }

  /** Names of the members kept in `extra` so far, in the order first seen (at most MAX_NAMES_LISTED). */
  get unknownMembers(): readonly string[] {
    return [...this.#kept];
  }

  /**
   * Appends the row to the buffer `target` picks for its partition date; returns that
   * date, or undefined when the row was dropped (outside the window, outside=drop).
   */
  append(row: ResultRow, target: ColumnBuffer | ((dt: string) => ColumnBuffer)): string | undefined {
    const index = this.#rowIndex++;
    this.totals.add(row);
    let other = false;
    const known = this.#known;
    for (const key in row) {
      if (!known.has(key)) {
        other = true;
        break;
      }
    }
    this.#other = other ? this.#otherMembers(row, index) : null;
    if (this.#day !== undefined) return this.#appendTo(row, target, this.#day, Number.NaN, Number.NaN);
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
      this.#lastInWindow = this.#window === undefined || this.#window.dates.has(this.#lastDate);
    }
    const dt = this.#lastDate;
    if (!this.#lastInWindow) return this.#outside(dt, index, start as string);
    return this.#appendTo(row, target, dt, localMs, utcMs);
  }

  #appendTo(
    row: ResultRow,
    target: ColumnBuffer | ((dt: string) => ColumnBuffer),
    dt: string,
    localMs: number,
    utcMs: number,
  ): string {
    const buffer = typeof target === 'function' ? target(dt) : target;
    this.quality.add(dt, row);
    buffer.reserveRow();
    const appenders = this.#appenders;
    for (let i = 0; i < appenders.length; i++) (appenders[i] as Appender)(row, buffer, localMs, utcMs);
    buffer.rows++;
    return dt;
  }

  /** A row dated outside the window: never reaches a buffer, so never a partition. */
  #outside(dt: string, index: number, start: string): undefined {
    const window = this.#window as NonNullable<RowMapperOptions['window']>;
    if ((window.outside ?? 'fail') === 'fail') {
      throw new RowOutsideWindowError(
        `Row ${index}: start ${start} (local date ${dt}) is outside the window ${window.label} (outsideWindow=fail)`,
      );
    }
    this.#dropped.set(dt, (this.#dropped.get(dt) ?? 0) + 1);
    return undefined;
  }

  /**
   * The row's members that no column takes, as a JSON object text in the order sent (the
   * client's source text first, then any member it did not give text for), or null when
   * none has a value.
   */
  #otherMembers(row: ResultRow, index: number): string | null {
    const raw = rawMembersOf(row);
    let text = '';
    if (raw !== undefined) {
      for (const [name, json] of raw) {
        if (this.#known.has(name)) continue;
        this.#keep(name, index);
        text += `${text === '' ? '{' : ','}${JSON.stringify(name)}:${json}`;
      }
    }
    for (const key in row) {
      if (this.#known.has(key) || raw?.has(key)) continue;
      const value: unknown = (row as Record<string, unknown>)[key];
      // A row of a stream is parsed JSON: its values stringify, once their depth is known bounded.
      if (typeof value === 'object' && value !== null && nestsDeeperThan(value)) {
        throw new RowConversionError(
          EXPORT_ERROR_CODES.rowInvalid,
          `Row ${index}: member ${JSON.stringify(key)} nests deeper than ${MAX_VALUE_DEPTH} levels (the limit of a value written to extra)`,
        );
      }
      const json = JSON.stringify(value) as string | undefined;
      if (json === undefined) continue; // absent, as a known member would be
      this.#keep(key, index);
      text += `${text === '' ? '{' : ','}${JSON.stringify(key)}:${json}`;
    }
    return text === '' ? null : `${text}}`;
  }

  #keep(name: string, index: number): void {
    if (this.#policy === UNKNOWN_MEMBER_POLICIES.fail) {
      throw new RowConversionError(
        EXPORT_ERROR_CODES.unknownMember,
        `Row ${index}: member ${JSON.stringify(name)} is not in the output schema (unknownMembers=fail)`,
      );
    }
    if (this.#kept.size < MAX_NAMES_LISTED) this.#kept.add(name);
  }

  #appender(c: ColumnDefinition, i: number, options: RowMapperOptions): Appender {
    const source = c.source;
    if (source.from === 'reportId' || source.from === 'requestId') {
      // Lineage is one value per run: entry 0 of the column's dictionary.
      const dictionary = this.dictionaries.columns[i];
      if (dictionary?.indexOf(source.from === 'reportId' ? options.reportId : options.requestId) !== 0) {
        throw new ExportConfigError(`Column ${c.name}: lineage columns must be strings`);
      }
      return (_row, buffer) => buffer.setIndex(i, 0);
    }
    if (source.from === 'startUtc') return (_row, buffer, _local, utc) => buffer.setNumber(i, utc);
    if (source.from === 'provisional') return this.#provisionalAppender(i, options.provisionalFrom);
    if (source.from === 'otherMembers') return (_row, buffer) => buffer.setString(i, this.#other);
    const name = source.member as keyof ResultRow;
    // A promoted member may be named like an Object.prototype member (`constructor`): only
    // the row's own member is its value. A spec member is read in place (no getter call per
    // value: a shared getter closure cost ~0.3 s of 900,400 rows' mapping).
    const promoted = source.from === 'promoted';
    const rowIndex = () => this.#rowIndex - 1;
    switch (c.kind) {
      case 'localTimestamp':
        if (source.from === 'member') return (_row, buffer, local) => buffer.setNumber(i, local);
        // A promoted member: a date-time without offset, like start.
        return (row, buffer) => {
          const v: unknown = promoted ? ownMember(row, name) : row[name];
          if (v === undefined || v === null) return buffer.setNumber(i, null);
          const ms = typeof v === 'string' ? parseLocalTime(v) : undefined;
          if (ms === undefined) throw invalid(rowIndex(), name, 'a date-time without offset');
          buffer.setNumber(i, ms);
        };
      case 'boolean':
        return (row, buffer) => {
          const v: unknown = promoted ? ownMember(row, name) : row[name];
          if (v === undefined || v === null) buffer.setNumber(i, null);
          else if (typeof v === 'boolean') buffer.setNumber(i, v ? 1 : 0);
          else throw invalid(rowIndex(), name, 'true or false');
        };
      case 'string':
        return (row, buffer) => {
          const v: unknown = promoted ? ownMember(row, name) : row[name];
          if (typeof v === 'string') buffer.setString(i, v);
          else if (v === undefined || v === null) buffer.setString(i, null);
          // A number the client parsed is one a double holds exactly (others arrive as
          // their source text), so its shortest round-trip text is the text sent.
          else if (typeof v === 'number' || typeof v === 'boolean') buffer.setString(i, String(v));
          else throw invalid(rowIndex(), name, 'a string');
        };
      case 'int32':
        return (row, buffer) => {
          const v = toNumber(promoted ? ownMember(row, name) : row[name]);
          if (v !== null && (!Number.isInteger(v) || v < -2_147_483_648 || v > 2_147_483_647)) {
            throw invalid(rowIndex(), name, 'a 32-bit integer');
          }
          buffer.setNumber(i, v);
        };
      case 'double':
        return (row, buffer) => {
          const v = toNumber(promoted ? ownMember(row, name) : row[name]);
          if (v !== null && !Number.isFinite(v)) throw invalid(rowIndex(), name, 'a finite number');
          // -0 is 0: Parquet would keep the sign (-0.0) and CSV would not ("0"); see README.
          buffer.setNumber(i, v === 0 ? 0 : v);
        };
      case 'utcTimestamp':
        throw new ExportConfigError(`Column ${c.name}: a member cannot be a UTC timestamp`);
    }
  }

  /** `provisional`: a summary's one day decides once; a call's local start against the day's first instant. */
  #provisionalAppender(i: number, from: string | undefined): Appender {
    if (from === undefined) return (_row, buffer) => buffer.setNumber(i, 0);
    const fromMs = parseLocalTime(`${from}T00:00:00`);
    if (fromMs === undefined)
      throw new ExportConfigError(`provisionalFrom must be a date YYYY-MM-DD, got ${from}`);
    if (this.#day !== undefined) {
      const value = this.#day >= from ? 1 : 0;
      return (_row, buffer) => buffer.setNumber(i, value);
    }
    return (_row, buffer, local) => buffer.setNumber(i, local >= fromMs ? 1 : 0);
  }
}

/** The row's own member `name` (never one of Object.prototype's). */
function ownMember(row: ResultRow, name: keyof ResultRow): unknown {
  return Object.hasOwn(row, name) ? row[name] : undefined;
}

/** A JSON number's text: what the service writes, and what the client hands over when a double cannot hold it. */
const DECIMAL = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * A number column's value. The notes say some numbers arrive as strings, and the client
 * passes a number whose digits a double cannot hold as its source text: both are decimal
 * text. Only that is read (Number() alone would also take '0x10', ' 12' or 'Infinity'),
 * anything else is NaN, which every number column rejects.
 */
function toNumber(v: unknown): number | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && DECIMAL.test(v)) return Number(v);
  return Number.NaN;
}

function invalid(index: number, member: string, expected: string): RowConversionError {
  return new RowConversionError(EXPORT_ERROR_CODES.rowInvalid, `Row ${index}: ${member} is not ${expected}`);
}
