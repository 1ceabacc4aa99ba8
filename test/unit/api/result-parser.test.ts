import { describe, expect, it } from 'vitest';
import { API_ERROR_CODES, parseReportResultStream, type ReportResultMetadata } from '../../../lib/api';
import type { ResultRow } from '../../../lib/spec/types';

const TRICKY_ROWS = [
  { connId: 'a', userName: 'Quote " and backslash \\ and slash /', duration: 1.5 },
  { connId: 'b', userName: 'Braces } { and brackets ] [ and comma , and },{', ans: 1 },
  { connId: 'c', userName: 'Unicode: Zoë 東京 🚀 \u0000 \u2028', cli: '+44 20' },
  { connId: 'd', nested: { deep: [1, { x: '],' }] }, callType: 2 },
  { connId: 'e', userName: '\\', hgName: '\\"' },
];

function doc(rows: unknown[], extra: Record<string, unknown> = {}, displayFields: string[] = []): string {
  const head = {
    requestId: 'r1',
    tenantId: 't1',
    request: {
      requestId: 'r1',
      rowLimit: 1000000,
      displayFields: displayFields.map((f) => ({ fieldName: f, mandatory: false })),
    },
    effort: 3,
    queryDuration: 10,
    totalDuration: '42',
    queryCount: 1,
    rowLimitExceeded: false,
    totalCount: String(rows.length),
    ...extra,
  };
  const tail = {
    summary: [{ ans: 1, ref: 0, lost: 0, ring: 2.5, duration: 9 }],
    status: 1,
    statusMessage: 'done',
    rowLimit: 1000000,
  };
  return `${JSON.stringify(head).slice(0, -1)},"data":${JSON.stringify(rows)},${JSON.stringify(tail).slice(1)}`;
}

async function* chunks(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function* splitAt(bytes: Uint8Array, at: number[]): AsyncGenerator<Uint8Array> {
  let from = 0;
  for (const p of at) {
    yield bytes.subarray(from, p);
    from = p;
  }
  yield bytes.subarray(from);
}

async function readAll(
  source: AsyncIterable<Uint8Array>,
): Promise<{ rows: ResultRow[]; meta: ReportResultMetadata }> {
  const stream = await parseReportResultStream(source);
  const rows: ResultRow[] = [];
  for await (const row of stream.rows) rows.push(row);
  return { rows, meta: await stream.done() };
}

describe('parseReportResultStream', () => {
  it('yields exactly the rows and the metadata when the document is whole', async () => {
    // Prepare
    const bytes = Buffer.from(doc(TRICKY_ROWS));
    // Act
    const { rows, meta } = await readAll(chunks(bytes, 1 << 16));
    // Assess
    expect(rows).toEqual(TRICKY_ROWS);
    expect(meta).toMatchObject({
      rowsRead: 5,
      totalCount: 5,
      totalDuration: 42,
      status: 1,
      statusMessage: 'done',
      rowLimit: 1000000,
    });
    expect(meta.summary).toEqual([{ ans: 1, ref: 0, lost: 0, ring: 2.5, duration: 9 }]);
  });

  it('yields the same rows when the body is split at every byte position', async () => {
    // Prepare
    const bytes = Buffer.from(doc(TRICKY_ROWS));
    // Act + Assess
    for (let at = 1; at < bytes.length; at++) {
      const { rows, meta } = await readAll(splitAt(bytes, [at]));
      expect(rows, `split at ${at}`).toEqual(TRICKY_ROWS);
      expect(meta.rowsRead).toBe(TRICKY_ROWS.length);
    }
  });

  it('yields the same rows when the body arrives one byte at a time', async () => {
    // Prepare
    const bytes = Buffer.from(doc(TRICKY_ROWS));
    // Act
    const { rows } = await readAll(chunks(bytes, 1));
    // Assess
    expect(rows).toEqual(TRICKY_ROWS);
  });

  it('maps array rows through request.displayFields when rows are arrays', async () => {
    // Prepare
    const fields = ['connId', 'userName', 'ans', 'duration'];
    const bytes = Buffer.from(
      doc(
        [
          ['c1', 'Ann', 1, 2.5],
          ['c2', null, 0, null],
        ],
        {},
        fields,
      ),
    );
    // Act
    const { rows } = await readAll(chunks(bytes, 7));
    // Assess
    expect(rows).toEqual([
      { connId: 'c1', userName: 'Ann', ans: 1, duration: 2.5 },
      { connId: 'c2', ans: 0 },
    ]);
  });

  it('fails with truncated_body at every cut position and never returns a short result', async () => {
    // Prepare
    const bytes = Buffer.from(doc(TRICKY_ROWS.slice(0, 3)));
    // Act + Assess
    for (let cut = 0; cut < bytes.length; cut++) {
      const outcome = await readAll(chunks(bytes.subarray(0, cut), 13)).then(
        () => 'resolved',
        (e: unknown) => (e as { code: string }).code,
      );
      expect(outcome, `cut at ${cut}`).toBe(API_ERROR_CODES.truncatedBody);
    }
  });

  it('rejects the iteration and done() with connection_error when the source fails mid-body', async () => {
    // Prepare
    const bytes = Buffer.from(doc(TRICKY_ROWS));
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield bytes.subarray(0, bytes.length - 40);
      throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    }
    const stream = await parseReportResultStream(failing());
    // Act
    const seen: ResultRow[] = [];
    const error = await (async () => {
      for await (const row of stream.rows) seen.push(row);
    })().catch((e: unknown) => e);
    // Assess
    expect(error).toHaveProperty('code', API_ERROR_CODES.connection);
    await expect(stream.done()).rejects.toHaveProperty('code', API_ERROR_CODES.connection);
  });

  it.each([
    { name: 'fewer rows than totalCount', extra: { totalCount: 6 }, expected: 6 },
    { name: 'more rows than totalCount', extra: { totalCount: 4 }, expected: 4 },
    {
      name: 'rowLimitExceeded with rows beyond the limit',
      extra: { totalCount: 9, rowLimitExceeded: true, request: { rowLimit: 3, displayFields: [] } },
      expected: 3,
    },
  ])('fails with row_count_mismatch when $name', async ({ extra, expected }) => {
    // Prepare
    const bytes = Buffer.from(doc(TRICKY_ROWS, extra).replace(',"rowLimit":1000000}', '}'));
    // Act
    const error = await readAll(chunks(bytes, 64)).catch((e: unknown) => e);
    // Assess
    expect(error).toMatchObject({ code: API_ERROR_CODES.rowCountMismatch, expected, actual: 5 });
  });

  it('accepts rowLimit rows and surfaces rowLimitExceeded when the limit was hit', async () => {
    // Prepare
    const text = doc(TRICKY_ROWS, { totalCount: 1200, rowLimitExceeded: true }).replace(
      '"rowLimit":1000000}',
      '"rowLimit":5}',
    );
    // Act
    const stream = await parseReportResultStream(chunks(Buffer.from(text), 50));
    for await (const _ of stream.rows) {
      // consume
    }
    const meta = await stream.done();
    // Assess
    expect(stream.head.rowLimitExceeded).toBe(true);
    expect(meta).toMatchObject({ rowLimitExceeded: true, rowLimit: 5, rowsRead: 5, totalCount: 1200 });
  });

  it.each([
    { name: 'not an object', text: '[1,2]', code: API_ERROR_CODES.protocol },
    { name: 'no data member', text: '{"request":{},"totalCount":0}', code: API_ERROR_CODES.protocol },
    {
      name: 'data not an array',
      text: '{"request":{},"totalCount":0,"data":{}}',
      code: API_ERROR_CODES.protocol,
    },
    {
      name: 'request after data',
      text: '{"totalCount":0,"data":[],"request":{}}',
      code: API_ERROR_CODES.protocol,
    },
    {
      name: 'totalCount after data',
      text: '{"request":{},"data":[],"totalCount":0}',
      code: API_ERROR_CODES.protocol,
    },
    {
      name: 'trailing garbage',
      text: '{"request":{},"totalCount":0,"data":[]} x',
      code: API_ERROR_CODES.protocol,
    },
    {
      name: 'empty element',
      text: '{"request":{},"totalCount":1,"data":[,{}]}',
      code: API_ERROR_CODES.protocol,
    },
    { name: 'scalar row', text: '{"request":{},"totalCount":1,"data":[1]}', code: API_ERROR_CODES.protocol },
    {
      name: 'missing comma between rows',
      text: '{"request":{},"totalCount":2,"data":[{} {}]}',
      code: API_ERROR_CODES.protocol,
    },
  ])('fails with a protocol error when the document is $name', async ({ text, code }) => {
    // Act
    const error = await readAll(chunks(Buffer.from(text), 4)).catch((e: unknown) => e);
    // Assess
    expect(error).toHaveProperty('code', code);
  });

  it('reads an empty result and pretty-printed JSON when given', async () => {
    // Prepare
    const pretty = JSON.stringify(
      { request: { displayFields: [] }, totalCount: 2, data: [{ a: '},{' }, { b: 1 }], status: 1 },
      null,
      2,
    );
    // Act
    const empty = await readAll(chunks(Buffer.from(doc([])), 3));
    const spaced = await readAll(chunks(Buffer.from(pretty), 5));
    // Assess
    expect(empty.rows).toEqual([]);
    expect(empty.meta.rowsRead).toBe(0);
    expect(spaced.rows).toEqual([{ a: '},{' }, { b: 1 }]);
  });

  it('hands out rows in batches when batches is used', async () => {
    // Prepare
    const rows = Array.from({ length: 1000 }, (_, i) => ({ connId: `c${i}`, ans: i }));
    const stream = await parseReportResultStream(chunks(Buffer.from(doc(rows)), 4096));
    // Act
    const got: ResultRow[] = [];
    for await (const batch of stream.batches) got.push(...batch);
    // Assess
    expect(got).toEqual(rows);
    expect((await stream.done()).rowsRead).toBe(1000);
  });

  it('yields every row in order when one chunk spans many parse windows and strings hold row ends', async () => {
    // Prepare
    const rows = Array.from({ length: 6000 }, (_, i) => ({
      connId: `c${i}`,
      userName: i % 7 === 0 ? 'x},{"y":1},' : 'plain',
      ans: i,
    }));
    const bytes = Buffer.from(doc(rows));
    // Act
    const whole = await readAll(chunks(bytes, bytes.length));
    const pieces = await readAll(chunks(bytes, 100_003));
    // Assess
    expect(bytes.length).toBeGreaterThan(3 * 64 * 1024);
    expect(whole.rows).toEqual(rows);
    expect(pieces.rows).toEqual(rows);
  });

  it('rejects done() with aborted when the stream is cancelled', async () => {
    // Prepare
    const stream = await parseReportResultStream(chunks(Buffer.from(doc(TRICKY_ROWS)), 64));
    // Act
    stream.cancel(new Error('stop'));
    // Assess
    await expect(stream.done()).rejects.toHaveProperty('code', API_ERROR_CODES.aborted);
  });
});
