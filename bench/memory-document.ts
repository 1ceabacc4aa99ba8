import type { ReportResultMetadata, ReportResultStream } from '../lib/api/result/stream';
import type { ReportRunDefinition, ResultRow } from '../lib/spec/types';

/**
 * The shapes of result that used to blow the memory budget:
 * - `large-rows`: rows with one string member of several MB each (a runaway free-text field);
 * - `many-days`: one row per local date over thousands of days (a long backfill).
 */
export type MemoryCase = 'large-rows' | 'many-days';

const CHUNK = 64 * 1024;
const DAY_MS = 86_400_000;
/** Members that carry the big value in turn: dictionary-indexed ones and ids. */
const BIG_MEMBERS = ['userName', 'connId', 'cliName', 'docId', 'hgName'] as const;

/** Filled buffers the big values are decoded from, one per filler and size (no garbage per row). */
const FILLED = new Map<string, Buffer>();

function baseRow(i: number, start: string): ResultRow {
  return {
    connId: `conn-${i}`,
    start,
    userName: `user ${i % 17}`,
    userNum: String(200 + (i % 40)),
    cli: `+44123456${String(i % 10_000).padStart(4, '0')}`,
    cliName: 'Reception',
    hgNum: '600',
    hgName: 'Sales',
    callType: 1,
    callDir: i % 2,
    ans: 1,
    ref: 0,
    lost: 0,
    ring: (i % 30) / 2,
    duration: i * 1.25,
    docId: `doc-${i}`,
  };
}

/**
 * Row `i` of a case. `large-rows`: a `rowMb` MiB (UTF-8) value, distinct per row, in one
 * member in turn; every third is non-ASCII, each needs CSV quoting.
 */
export function memoryRow(memoryCase: MemoryCase, i: number, rowMb: number): ResultRow {
  if (memoryCase === 'many-days') {
    const date = new Date(Date.UTC(2018, 0, 1) + i * DAY_MS).toISOString().slice(0, 10);
    return baseRow(i, `${date}T10:00:00`);
  }
  const row = baseRow(
    i,
    `2026-03-10T${String(Math.floor(i / 60) % 24).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00`,
  );
  const bytes = rowMb * 1024 * 1024;
  // The comma makes every big field quoted in CSV, a quote is doubled; 'é' is 2 UTF-8
  // bytes (the tag is 8 bytes, so it never splits one). Made from bytes so the string is
  // flat, as a JSON parser makes it (a concatenation would be flattened again later).
  const fill = i % 3 === 0 ? 'é' : 'x';
  let text = FILLED.get(`${fill}${bytes}`);
  if (text === undefined) {
    text = Buffer.alloc(bytes, fill);
    FILLED.set(`${fill}${bytes}`, text);
  }
  text.write((i % 5 === 0 ? `${i},"` : `${i},`).padEnd(8, '-'), 0, 'utf8');
  const member = BIG_MEMBERS[i % BIG_MEMBERS.length] as (typeof BIG_MEMBERS)[number];
  row[member] = text.toString('utf8');
  return row;
}

const REQUEST = {
  requestId: 'req-memory',
  reportId: 'report-1',
  timeZoneId: 'Europe/London',
  rowLimit: 1_000_000,
  metadata: { timezoneDateFrom: '2018-01-01T00:00:00', timezoneDateTo: '2026-12-31T23:59:59' },
};

/**
 * A ReportResultStream whose rows are made as they are read (none held): what the
 * client hands the export core, without the cost of parsing JSON.
 */
export function memorySource(memoryCase: MemoryCase, count: number, rowMb = 4): ReportResultStream {
  const head = {
    requestId: REQUEST.requestId,
    tenantId: 'tenant-1',
    request: REQUEST as unknown as ReportRunDefinition,
    totalCount: count,
    rowLimitExceeded: false,
    rowLimit: REQUEST.rowLimit,
  };
  let read = 0;
  async function* rows(): AsyncGenerator<ResultRow> {
    for (; read < count; read++) yield memoryRow(memoryCase, read, rowMb);
  }
  async function* batches(): AsyncGenerator<ResultRow[]> {
    for await (const row of rows()) yield [row];
  }
  const metadata: ReportResultMetadata = {
    ...head,
    effort: 0,
    queryDuration: 0,
    totalDuration: 0,
    queryCount: 1,
    summary: [],
    status: 1,
    statusMessage: 'Complete',
    rowsRead: count,
    replacedCharacters: 0,
  };
  return {
    head,
    rows: rows(),
    batches: batches(),
    done: async () => ({ ...metadata, rowsRead: read }),
    cancel: () => undefined,
  };
}

/** The same result as a JSON document in body chunks of 64 KiB, made as it is read (for the client parser). */
export async function* documentChunks(
  memoryCase: MemoryCase,
  count: number,
  rowMb = 4,
): AsyncGenerator<Uint8Array> {
  const head = {
    requestId: REQUEST.requestId,
    tenantId: 'tenant-1',
    request: REQUEST,
    rowLimitExceeded: false,
    totalCount: count,
  };
  let pending = `${JSON.stringify(head).slice(0, -1)},"data":[`;
  for (let i = 0; i < count; i++) {
    pending += `${i > 0 ? ',' : ''}${JSON.stringify(memoryRow(memoryCase, i, rowMb))}`;
    if (pending.length >= CHUNK) {
      const bytes = Buffer.from(pending, 'utf8');
      pending = '';
      for (let o = 0; o < bytes.length; o += CHUNK) yield bytes.subarray(o, o + CHUNK);
    }
  }
  pending += '],"summary":[],"status":1,"statusMessage":"Complete","rowLimit":1000000}';
  yield Buffer.from(pending, 'utf8');
}
