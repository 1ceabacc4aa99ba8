import { describe, expect, it } from 'vitest';
import { API_ERROR_CODES, ProtocolError, ValueTooDeepError } from '../../../lib/api';
import { rawMembersOf } from '../../../lib/api/result/stream';
import type { ResultRow } from '../../../lib/spec/types';
import { readResult, resultDocument } from './result-document';

/** The error a read fails with (or undefined when it succeeds). */
async function failureOf(bytes: Uint8Array, size?: number): Promise<unknown> {
  return readResult(bytes, size).then(
    () => undefined,
    (error: unknown) => error,
  );
}

/** `depth` nested arrays around `inner`. */
function nested(depth: number, inner = '1'): string {
  return `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
}

/** Chunkings: the whole body in the head's chunk, every byte apart, and a size in between. */
const CHUNKS = [1 << 20, 1, 7];

describe('parseReportResultStream array rows', () => {
  const fields = ['connId', 'wait', 'ans'];
  const rows = Array.from({ length: 40 }, (_, i) => `["c${i}", 12.50, ${i % 2}]`);
  const bytes = resultDocument(`[${rows.join(',')}]`, rows.length, fields);

  it.each(CHUNKS)(
    'keeps the exact text of every undocumented element when chunks are %i bytes',
    async (size) => {
      // Act
      const { rows: read } = await readResult(bytes, size);

      // Assess: the rows of the head's chunk too.
      expect(read.map((r) => rawMembersOf(r)?.get('wait'))).toEqual(read.map(() => '12.50'));
    },
  );

  it('makes a __proto__ column an own member, never the prototype, when displayFields names it', async () => {
    // Prepare
    const doc = resultDocument('[["c1", {"hgName":"forged"}, "t"],["c2", null, null]]', 2, [
      'connId',
      '__proto__',
      'toString',
    ]);

    // Act
    const { rows: read } = await readResult(doc);

    // Assess
    const [first, second] = read as [ResultRow, ResultRow];
    expect(Object.getPrototypeOf(first)).toBe(Object.prototype);
    expect(first.hgName).toBeUndefined();
    expect(Object.keys(first)).toEqual(['connId', '__proto__', 'toString']);
    expect(Object.getOwnPropertyDescriptor(first, '__proto__')?.value).toEqual({ hgName: 'forged' });
    expect(Object.keys(second)).toEqual(['connId']);
    expect(second.hgName).toBeUndefined();
  });

  it.each([
    { kind: 'shorter', row: '["c2", 1]', length: 2 },
    { kind: 'longer', row: '["c2", 1, 0, 5]', length: 4 },
  ])('refuses a row $kind than displayFields, naming the row and both lengths', async ({ row, length }) => {
    // Prepare
    const doc = resultDocument(`[["c1", 1, 0],${row}]`, 2, fields);

    // Act
    const error = await failureOf(doc);

    // Assess
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toContain(`row index 1 has ${length} values`);
    expect((error as Error).message).toContain('names 3');
  });
});

describe('parseReportResultStream deep values', () => {
  it.each([
    { kind: 'an object row member', data: (v: string) => `[{"connId":"c0"},{"connId":"c1","extra":${v}}]` },
    { kind: 'an array row element', data: (v: string) => `[["c0",null],["c1",${v}]]` },
  ])(
    'fails with ValueTooDeepError naming the row and member when $kind nests 5,000 levels',
    async ({ data }) => {
      // Prepare
      const doc = resultDocument(data(nested(5000)), 2, ['connId', 'extra']);

      // Act
      const error = await failureOf(doc);

      // Assess
      expect(error).toBeInstanceOf(ValueTooDeepError);
      expect(error).toMatchObject({
        code: API_ERROR_CODES.valueTooDeep,
        row: 1,
        member: 'extra',
        limit: 128,
      });
    },
  );

  it('reads a value nested exactly to the limit and refuses one level more', async () => {
    // Prepare
    const at = resultDocument(`[{"connId":"c0","extra":${nested(128)}}]`, 1);
    const past = resultDocument(`[{"connId":"c0","extra":${nested(129)}}]`, 1);

    // Act
    const { rows } = await readResult(at);
    const error = await failureOf(past);

    // Assess
    expect(rawMembersOf(rows[0] as ResultRow)?.get('extra')).toBe(nested(128));
    expect(error).toBeInstanceOf(ValueTooDeepError);
  });

  it('fails with ValueTooDeepError, not a stack overflow, when a head member nests 200,000 levels with escapes', async () => {
    // Prepare: `\u0041` sends the value through the lone-surrogate walk too.
    const deep = nested(200_000, '"\\u0041"');
    const doc = Buffer.from(
      `{"requestId":"r1","request":{"requestId":"r1","metadata":${deep}},"totalCount":0,"data":[],"status":1}`,
    );

    // Act
    const error = await failureOf(doc);

    // Assess
    expect(error).toBeInstanceOf(ValueTooDeepError);
    expect(error).toMatchObject({ member: 'request', row: undefined });
  });
});

describe('parseReportResultStream members sent twice', () => {
  it.each([
    { kind: 'compact', row: '{"connId":"c1","ans":1,"ans":0}', member: 'ans' },
    { kind: 'spaced', row: '{ "connId" : "c1" , "ans" : 1 , "ans" : 0 }', member: 'ans' },
    { kind: 'escaped name', row: '{"connId":"c1","ans":1,"an\\u0073":0}', member: 'ans' },
    { kind: 'undocumented', row: '{"connId":"c1","queue":"a:b","queue":"c"}', member: 'queue' },
    {
      kind: 'beside a nested object',
      row: '{"connId":"c1","x":{"y":{"z":1}},"cli":"1","cli":"2"}',
      member: 'cli',
    },
    {
      kind: 'hidden by an escaped colon',
      row: '{"connId":"c1","start":"2026-01-01T10\\u003a00:00","ans":1,"ans":0}',
      member: 'ans',
    },
    {
      kind: 'named by lone surrogates that read the same',
      row: '{"connId":"c1","\\ud800":1,"\\udc00":2}',
      member: '\uFFFD',
    },
  ])('refuses a row with a member twice, naming the row and member, when $kind', async ({ row, member }) => {
    // Prepare
    const doc = resultDocument(`[{"connId":"c0","start":"2026-01-01T09:00:00"},${row}]`, 2);

    for (const size of CHUNKS) {
      // Act
      const error = await failureOf(doc, size);

      // Assess
      expect(error, `chunks of ${size}`).toBeInstanceOf(ProtocolError);
      expect((error as Error).message).toContain(`Row index 1 has the member '${member}' twice`);
    }
  });

  it('reads rows whose strings hold colons and whose nested objects repeat names when no member is twice', async () => {
    // Prepare
    const data =
      '[{"connId":"c:1","start":"2026-01-01T09:00:00","cliName":"Dr: Who","x":{"connId":{"connId":":"}}},' +
      '{"connId":"c2","start":"2026-01-01T09:00:01","a:b":"::"}]';

    // Act
    const { rows } = await readResult(resultDocument(data, 2));

    // Assess
    expect(rows.map((r) => Object.keys(r))).toEqual([
      ['connId', 'start', 'cliName', 'x'],
      ['connId', 'start', 'a:b'],
    ]);
  });

  // The colons are counted in the bytes the text was decoded from: invalid UTF-8 replaced
  // beside a colon must neither hide nor add one.
  const INVALID = Buffer.from([0xe2, 0x82]); // a three-byte sequence cut short

  it.each([
    { kind: 'invalid UTF-8 before a colon', before: INVALID, after: Buffer.alloc(0) },
    { kind: 'invalid UTF-8 after a colon', before: Buffer.alloc(0), after: INVALID },
    { kind: 'a multi-byte character beside it', before: Buffer.from('é:€'), after: Buffer.from('😀') },
  ])('counts the colons of the bytes when $kind', async ({ before, after }) => {
    // Prepare: one name with the bytes around a colon, then the same row with a member twice.
    const name = Buffer.concat([before, Buffer.from(':'), after]);
    const row = (twice: string) =>
      Buffer.concat([Buffer.from('{"connId":"c1","'), name, Buffer.from(`":"${name.length}"${twice}}`)]);
    const template = resultDocument('[@]', 2);
    const at = template.indexOf('@');
    const doc = (second: Buffer) =>
      Buffer.concat([
        template.subarray(0, at),
        Buffer.from('{"connId":"c0"},'),
        second,
        template.subarray(at + 1),
      ]);

    for (const size of CHUNKS) {
      // Act
      const read = await readResult(doc(row('')), size);
      const error = await failureOf(doc(row(',"ans":1,"ans":0')), size);

      // Assess
      expect(read.rows, `chunks of ${size}`).toHaveLength(2);
      expect(error, `chunks of ${size}`).toBeInstanceOf(ProtocolError);
      expect((error as Error).message).toContain(`Row index 1 has the member 'ans' twice`);
    }
  });

  it('refuses a member twice in a row longer than the 64 KiB page its colons are counted in', async () => {
    // Prepare: the colons on both sides of the page boundary.
    const pad = ':'.repeat(70_000);
    const doc = resultDocument(`[{"connId":"c0"},{"connId":"c1","pad":"${pad}","ans":1,"ans":0}]`, 2);
    const fine = resultDocument(`[{"connId":"c0"},{"connId":"c1","pad":"${pad}","ans":1}]`, 2);

    // Act
    const error = await failureOf(doc, doc.length);
    const { rows } = await readResult(fine, fine.length);

    // Assess
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toContain(`Row index 1 has the member 'ans' twice`);
    expect((rows[1] as Record<string, unknown> | undefined)?.pad).toHaveLength(70_000);
  });
});

describe('parseReportResultStream summary', () => {
  const entry = { ans: 1, ref: 0, lost: 0, ring: 2, duration: 9 };

  it.each([
    { kind: 'an array', sent: JSON.stringify([entry]), summary: [entry] },
    { kind: 'one object', sent: JSON.stringify(entry), summary: [entry] },
    { kind: 'null', sent: 'null', summary: [] },
  ])('hands out the summary as entries when it is $kind', async ({ sent, summary }) => {
    // Prepare
    const doc = resultDocument('[]', 0, [], `"summary":${sent},"status":1`);

    // Act
    const { meta } = await readResult(doc);

    // Assess
    expect(meta.summary).toEqual(summary);
  });

  it.each(['"none"', '5', 'true'])('refuses a summary that is %s, naming it', async (sent) => {
    // Prepare
    const doc = resultDocument('[]', 0, [], `"summary":${sent},"status":1`);

    // Act
    const error = await failureOf(doc);

    // Assess
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toContain("'summary'");
  });
});
