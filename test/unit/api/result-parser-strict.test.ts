import { describe, expect, it } from 'vitest';
import {
  AbortedError,
  ProtocolError,
  parseReportResultStream,
  type ReportResultMetadata,
  type ReportResultStream,
  RowCountMismatchError,
  TimeoutError,
} from '../../../lib/api';
import type { ResultRow } from '../../../lib/spec/types';

const HEAD = '{"requestId":"r1","request":{"displayFields":[{"fieldName":"connId"},{"fieldName":"cli"}]}';

function doc(rowsJson: string, totalCount: number, tail = ',"status":1}'): string {
  return `${HEAD},"totalCount":${totalCount},"data":[${rowsJson}]${tail}`;
}

async function* chunks(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function readAll(
  source: AsyncIterable<Uint8Array>,
  options: Parameters<typeof parseReportResultStream>[1] = {},
): Promise<{ rows: ResultRow[]; meta: ReportResultMetadata }> {
  const stream: ReportResultStream = await parseReportResultStream(source, options);
  const rows: ResultRow[] = [];
  for await (const batch of stream.batches) rows.push(...batch);
  return { rows, meta: await stream.done() };
}

const bytesOf = (text: string) => Buffer.from(text);

describe('parseReportResultStream (strict reading)', () => {
  it.each([1, 2, 3, 1 << 16])(
    'reads a result that starts with a UTF-8 BOM when chunks are %i bytes',
    async (size) => {
      // Prepare
      const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytesOf(doc('{"connId":"a"}', 1))]);
      // Act
      const { rows } = await readAll(chunks(body, size));
      // Assess
      expect(rows).toEqual([{ connId: 'a' }]);
    },
  );

  it('replaces and counts invalid UTF-8 and lone surrogates when invalidText is count', async () => {
    // Prepare
    const body = Buffer.concat([
      bytesOf(`${HEAD},"totalCount":2,"data":[{"connId":"a","cli":"x`),
      Buffer.from([0xff, 0xc3]),
      bytesOf('y"},{"connId":"b","cli":"\\uD800z"}],"status":1}'),
    ]);
    // Act
    const { rows, meta } = await readAll(chunks(body, 7));
    // Assess
    expect(rows).toEqual([
      { connId: 'a', cli: 'x\uFFFD\uFFFDy' },
      { connId: 'b', cli: '\uFFFDz' },
    ]);
    expect(meta.replacedCharacters).toBe(3);
  });

  it.each([
    {
      name: 'invalid UTF-8 in an object row',
      rows: [bytesOf('{"connId":"a"},{"connId":"b","cli":"'), Buffer.from([0xc0]), bytesOf('"}')],
      member: 'cli',
    },
    {
      name: 'invalid UTF-8 in an array row',
      rows: [bytesOf('["a","1"],["b","'), Buffer.from([0xed, 0xa0, 0x80]), bytesOf('"]')],
      member: 'cli',
    },
    {
      name: 'a lone surrogate',
      rows: [bytesOf('{"connId":"a"},{"connId":"b","cli":"\\uDC00"}')],
      member: 'cli',
    },
  ])(
    'fails naming row index and member when invalidText is fail and the result holds $name',
    async ({ rows, member }) => {
      // Prepare
      const body = Buffer.concat([
        bytesOf(`${HEAD},"totalCount":2,"data":[`),
        ...rows,
        bytesOf('],"status":1}'),
      ]);
      // Act
      const error = await readAll(chunks(body, 5), { invalidText: 'fail' }).catch((e: unknown) => e);
      // Assess
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as Error).message).toContain('row index 1');
      expect((error as Error).message).toContain(`'${member}'`);
    },
  );

  it('yields numbers that do not round-trip as their exact text and keeps the others numbers', async () => {
    // Prepare
    const row =
      '{"cli":441234567890123456,"ring":1.50,"duration":-0,"a":1e21,"b":1E-7,"c":0.0000001,"d":2.5,"ans":3,"e":"1.50","f":[12345678901234567.5,7]}';
    const body = bytesOf(doc(`${row},["c2",441234567890123456]`, 2));
    // Act
    const { rows } = await readAll(chunks(body, 16));
    // Assess
    expect(rows[0]).toEqual({
      cli: '441234567890123456',
      ring: '1.50',
      duration: '-0',
      a: '1e21',
      b: '1E-7',
      c: '0.0000001',
      d: 2.5,
      ans: 3,
      e: '1.50',
      f: ['12345678901234567.5', 7],
    });
    expect(rows[1]).toEqual({ connId: 'c2', cli: '441234567890123456' });
  });

  it.each([
    { name: 'a trailing comma in data', text: doc('{"connId":"a"},', 1), what: 'trailing comma' },
    {
      name: 'a trailing comma in data after many rows',
      text: doc(`${'{"connId":"a"},'.repeat(300)}`, 300),
      what: 'trailing comma',
    },
    { name: 'a trailing comma in an object row', text: doc('{"connId":"a",}', 1), what: 'Malformed row' },
    { name: 'a trailing comma in an array row', text: doc('["a",]', 1), what: 'Malformed row' },
    {
      name: 'a trailing comma in the result object',
      text: doc('{"connId":"a"}', 1, ',"status":1,}'),
      what: 'trailing comma',
    },
    {
      name: 'a trailing comma right after data',
      text: doc('{"connId":"a"}', 1, ',}'),
      what: 'trailing comma',
    },
    { name: 'a comma before the first member', text: `{,${doc('', 0).slice(1)}`, what: 'member name' },
    {
      name: 'a missing comma before data',
      text: `${HEAD},"totalCount":0 "data":[],"status":1}`,
      what: 'comma is missing',
    },
    {
      name: 'two data members',
      text: doc('{"connId":"a"}', 1, ',"data":[{"connId":"b"}]}'),
      what: "two 'data'",
    },
    {
      name: 'two totalCount members',
      text: `${HEAD},"totalCount":2,"totalCount":1,"data":[{}]}`,
      what: "two 'totalCount'",
    },
    {
      name: 'a member before and after data',
      text: `${HEAD},"rowLimit":5,"totalCount":1,"data":[{}],"rowLimit":9}`,
      what: "two 'rowLimit'",
    },
    { name: 'an escaped second data member', text: doc('{}', 1, ',"d\\u0061ta":[]}'), what: "two 'data'" },
  ])('fails with a ProtocolError when the document has $name', async ({ text, what }) => {
    // Act
    const error = await readAll(chunks(bytesOf(text), 64)).catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toContain(what);
  });

  it('fails at the first row beyond totalCount and cancels the body when the body never ends', async () => {
    // Prepare
    let pulled = 0;
    let released = false;
    let cancelled = 0;
    async function* endless(): AsyncGenerator<Uint8Array> {
      try {
        yield bytesOf(`${HEAD},"totalCount":2,"data":[`);
        for (; pulled < 100_000; pulled++) yield bytesOf('{"connId":"x"},');
      } finally {
        released = true;
      }
    }
    // Act
    const error = await readAll(endless(), { onCancel: () => cancelled++ }).catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(RowCountMismatchError);
    expect(error).toMatchObject({ expected: 2, actual: 3 });
    expect(pulled).toBeLessThan(10);
    expect(cancelled).toBeGreaterThan(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(released).toBe(true);
  });

  it.each([
    { name: 'the total time is spent', options: { totalTimeoutMs: 100 }, type: TimeoutError },
    { name: 'the caller aborts', options: { signal: AbortSignal.timeout(100) }, type: AbortedError },
  ])('rejects and cancels the body when a body trickles and $name', async ({ options, type }) => {
    // Prepare: one byte every 10 ms, 1000 at most (the parser must stop it long before).
    let sent = 0;
    async function* trickle(): AsyncGenerator<Uint8Array> {
      yield bytesOf(`${HEAD},"totalCount":1,"data":[`);
      for (; sent < 1000; sent++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        yield bytesOf(' ');
      }
    }
    let cancelled = 0;
    // Act
    const error = await readAll(trickle(), { ...options, onCancel: () => cancelled++ }).catch(
      (e: unknown) => e,
    );
    // Assess
    expect(error).toBeInstanceOf(type);
    expect(cancelled).toBeGreaterThan(0);
    expect(sent).toBeLessThan(1000);
  });

  it.each([
    { name: 'not an array', displayFields: '"connId"' },
    {
      name: 'an entry without a string fieldName',
      displayFields: '[{"fieldName":"connId"},{"fieldName":3}]',
    },
    { name: 'a null entry', displayFields: '[null]' },
    { name: 'a name twice', displayFields: '[{"fieldName":"connId"},{"fieldName":"connId"}]' },
  ])('fails naming request.displayFields when rows are arrays and it is $name', async ({ displayFields }) => {
    // Prepare
    const text = `{"request":{"displayFields":${displayFields}},"totalCount":1,"data":[["a"]]}`;
    // Act
    const error = await readAll(chunks(bytesOf(text), 16)).catch((e: unknown) => e);
    const objects = await readAll(chunks(bytesOf(text.replace('[["a"]]', '[{"connId":"a"}]')), 16));
    // Assess
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toContain('request.displayFields');
    expect(objects.rows).toEqual([{ connId: 'a' }]);
  });
});
