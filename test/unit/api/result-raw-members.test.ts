import { describe, expect, it } from 'vitest';
import { isSpecRowMember } from '../../../lib/api/result/members';
import { rawMembersOf } from '../../../lib/api/result/stream';
import { RESULT_ROW_FIELDS, type ResultRow } from '../../../lib/spec/types';
import { readResult, resultDocument } from './result-document';

async function readRows(bytes: Uint8Array, size?: number): Promise<ResultRow[]> {
  return (await readResult(bytes, size)).rows;
}

/** Member values as the service may write them, and the compact JSON text to keep. */
const VALUES = [
  {
    kind: 'a string with quotes and escapes',
    sent: '"say \\"hi\\" \\u2013 caf\\u00e9 \\ud83d\\ude80 a\\/b\\tc"',
    kept: '"say \\"hi\\" – café 🚀 a/b\\tc"',
  },
  { kind: 'a string with raw unicode and emoji', sent: '"Zoë 日本 🚀"', kept: '"Zoë 日本 🚀"' },
  { kind: 'a lone surrogate', sent: '"\\ud800x"', kept: '"\uFFFDx"' },
  { kind: 'an integer', sent: '42', kept: '42' },
  { kind: 'a decimal with a trailing zero', sent: '12.50', kept: '12.50' },
  { kind: 'an exponent', sent: '1e3', kept: '1e3' },
  { kind: 'a signed exponent', sent: '2.5E-7', kept: '2.5E-7' },
  { kind: 'a negative number', sent: '-7', kept: '-7' },
  { kind: 'negative zero', sent: '-0', kept: '-0' },
  { kind: 'an integer a double cannot hold', sent: '441234567890123456', kept: '441234567890123456' },
  { kind: 'true', sent: 'true', kept: 'true' },
  { kind: 'false', sent: 'false', kept: 'false' },
  { kind: 'null', sent: 'null', kept: 'null' },
  {
    kind: 'a nested object with spaces',
    sent: '{ "a" : [ 1 , 2.50 ] ,\n "b" : { "c" : "x y", "2" : 1e0 } }',
    kept: '{"a":[1,2.50],"b":{"c":"x y","2":1e0}}',
  },
  { kind: 'an array', sent: '[ 1, "two , ]", null, [ ] ]', kept: '[1,"two , ]",null,[]]' },
  { kind: 'an empty object', sent: '{ }', kept: '{}' },
];

describe('isSpecRowMember', () => {
  it('accepts exactly the spec row members when names are spec members or not', () => {
    // Act
    const spec = RESULT_ROW_FIELDS.filter(isSpecRowMember);
    const others = ['queue', 'extra', '', '__proto__', 'constructor', 'ConnId', 'start '].filter(
      isSpecRowMember,
    );

    // Assess
    expect(spec).toEqual([...RESULT_ROW_FIELDS]);
    expect(others).toEqual([]);
  });
});

describe('parseReportResultStream raw members', () => {
  it.each(VALUES)('keeps $kind exactly as sent when a member is not in the spec', async ({ sent, kept }) => {
    // Prepare
    const bytes = resultDocument(`[{"connId":"c1","m" : ${sent},"ans":1},{"connId":"c2"}]`, 2);

    // Act
    const whole = await readRows(bytes);
    const byByte = await readRows(bytes, 1);

    // Assess
    for (const rows of [whole, byByte]) {
      expect([...(rawMembersOf(rows[0] as ResultRow) ?? [])]).toEqual([['m', kept]]);
      expect(rawMembersOf(rows[1] as ResultRow)).toBeUndefined();
    }
  });

  it('keeps the members in the order sent when names look like indexes', async () => {
    // Prepare: a JS object would list "2024" first.
    const bytes = resultDocument(
      '[{"z":1,"connId":"c","2024":"y","a":true,"start":"2026-01-01T00:00:00"}]',
      1,
    );

    // Act
    const [row] = await readRows(bytes);

    // Assess
    expect([...(rawMembersOf(row as ResultRow) ?? [])]).toEqual([
      ['z', '1'],
      ['2024', '"y"'],
      ['a', 'true'],
    ]);
  });

  it('keeps the rows as they were parsed when they carry raw members', async () => {
    // Prepare
    const bytes = resultDocument('[{"connId":"c","queue":"q","wait":1.50}]', 1);

    // Act
    const [row] = await readRows(bytes);

    // Assess: the members are in the row as before; the raw text is not a member.
    expect(row).toEqual({ connId: 'c', queue: 'q', wait: '1.50' });
    expect(Object.keys(row as object)).toEqual(['connId', 'queue', 'wait']);
    expect(JSON.stringify(row)).toBe('{"connId":"c","queue":"q","wait":"1.50"}');
  });

  it('keeps the non-null elements of undocumented columns when rows are arrays', async () => {
    // Prepare
    const fields = ['connId', 'queue', 'ans', 'wait'];
    const bytes = resultDocument(
      '[["c1", "q", 1, 1.50],["c2",null,0,null],[ "c3" , null , 1 , { "k" : [ ] } ]]',
      3,
      fields,
    );

    // Act
    const rows = await readRows(bytes, 5);

    // Assess
    expect(rows.map((r) => [...(rawMembersOf(r) ?? [])])).toEqual([
      [
        ['queue', '"q"'],
        ['wait', '1.50'],
      ],
      [],
      [['wait', '{"k":[]}']],
    ]);
    expect(rows[1]).toEqual({ connId: 'c2', ans: 0 });
  });

  it('gives no raw members when every member is in the spec', async () => {
    // Prepare
    const bytes = resultDocument('[{"connId":"c","start":"2026-01-01T00:00:00","ring":1.50,"docId":"d"}]', 1);

    // Act
    const [row] = await readRows(bytes);

    // Assess
    expect(rawMembersOf(row as ResultRow)).toBeUndefined();
  });
});
