import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  AVRO_ERROR_CODE,
  type AvroRecordSchema,
  type AvroSchema,
  compileSchema,
  decodeAvroFile,
  decodeAvroHeader,
  encodeAvroFile,
} from '../../../../lib/export/table/avro/avro';
import { icebirdRead, icebirdWrite } from './icebird-avro';

const SYNC = Uint8Array.from({ length: 16 }, (_, i) => i * 7 + 1);
const utf8 = new TextEncoder();

/** Zigzag varint of a small integer, written here independently of the encoder under test. */
function zz(n: number): number[] {
  let v = n >= 0 ? n * 2 : -n * 2 - 1;
  const out: number[] = [];
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return out;
}

const str = (s: string): number[] => [...zz(utf8.encode(s).length), ...utf8.encode(s)];

/** A container file put together byte by byte: header, then blocks of (count, size, data, sync). */
function container(options: {
  schema: unknown;
  codec?: string;
  blocks: { count: number; data: number[] }[];
  sync?: Uint8Array;
  blockSync?: Uint8Array;
}): Uint8Array {
  const sync = options.sync ?? SYNC;
  const bytes: number[] = [0x4f, 0x62, 0x6a, 0x01, ...zz(2)];
  bytes.push(...str('avro.schema'), ...str(JSON.stringify(options.schema)));
  bytes.push(...str('avro.codec'), ...str(options.codec ?? 'null'), 0, ...sync);
  for (const block of options.blocks) {
    const data = options.codec === 'deflate' ? [...deflateRawSync(Uint8Array.from(block.data))] : block.data;
    bytes.push(...zz(block.count), ...zz(data.length), ...data, ...(options.blockSync ?? sync));
  }
  return Uint8Array.from(bytes);
}

const EVERY_TYPE: AvroRecordSchema = {
  type: 'record',
  name: 'every_type',
  fields: [
    { name: 'n', type: 'null', 'field-id': 1 },
    { name: 'b', type: 'boolean', 'field-id': 2 },
    { name: 'i', type: 'int', 'field-id': 3 },
    { name: 'l', type: 'long', 'field-id': 4 },
    { name: 'f', type: 'float', 'field-id': 5 },
    { name: 'd', type: 'double', 'field-id': 6 },
    { name: 'by', type: 'bytes', 'field-id': 7 },
    { name: 's', type: 'string', 'field-id': 8 },
    { name: 'fx', type: { type: 'fixed', name: 'md5', size: 4 }, 'field-id': 9 },
    { name: 'e', type: { type: 'enum', name: 'color', symbols: ['RED', 'GREEN'] }, 'field-id': 10 },
    { name: 'u', type: ['null', 'string', 'long'], default: null, 'field-id': 11 },
    { name: 'a', type: { type: 'array', items: 'long', 'element-id': 13 }, 'field-id': 12 },
    { name: 'm', type: { type: 'map', values: 'int' }, 'field-id': 14 },
    {
      name: 'r',
      type: {
        type: 'record',
        name: 'inner',
        fields: [{ name: 'day', type: { type: 'int', logicalType: 'date' }, 'field-id': 16 }],
      },
      'field-id': 15,
    },
    { name: 'again', type: ['null', 'md5'], default: null, 'field-id': 17 },
  ],
};

function everyType(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    n: null,
    b: true,
    i: -2147483648,
    l: -(2n ** 63n),
    f: 1.5,
    d: -0.1,
    by: Uint8Array.of(0, 255),
    s: 'žluťoučký kůň 🐎',
    fx: Uint8Array.of(1, 2, 3, 4),
    e: 'GREEN',
    u: 'text',
    a: [0n, -1n, 2n ** 62n],
    m: new Map([
      ['', 0],
      ['ключ', 2147483647],
    ]),
    r: { day: -1 },
    again: null,
    ...overrides,
  };
}

describe('avro', () => {
  it('round-trips every type with edge values when encoded and decoded', () => {
    // Arrange
    const records = [
      everyType(),
      everyType({
        b: false,
        l: 2n ** 63n - 1n,
        u: 5n,
        s: '',
        by: new Uint8Array(),
        a: [],
        m: new Map(),
        again: Uint8Array.of(9, 9, 9, 9),
      }),
      everyType({ l: 0n, u: null, d: Number.NaN, f: Number.NEGATIVE_INFINITY, e: 'RED' }),
    ];

    // Act
    const bytes = encodeAvroFile(EVERY_TYPE, records);
    const file = decodeAvroFile(bytes);

    // Assess
    expect(file.records).toEqual(records);
    expect(file.schema).toEqual(EVERY_TYPE);
    expect(decodeAvroFile(Buffer.from(bytes)).records).toEqual(records);
  });

  it.each([
    0n,
    -1n,
    1n,
    63n,
    -64n,
    64n,
    2n ** 31n,
    2n ** 52n - 1n,
    2n ** 52n,
    -(2n ** 52n),
    2n ** 53n + 1n,
    -(2n ** 53n) - 1n,
    2n ** 62n,
    -(2n ** 62n),
    2n ** 63n - 1n,
    -(2n ** 63n),
  ])('round-trips the long %s, and icebird reads the same value', (value) => {
    // Arrange
    const schema: AvroRecordSchema = { type: 'record', name: 'x', fields: [{ name: 'v', type: 'long' }] };

    // Act
    const bytes = encodeAvroFile(schema, [{ v: value }]);

    // Assess
    expect(decodeAvroFile(bytes).records).toEqual([{ v: value }]);
    expect(icebirdRead(bytes).records).toEqual([{ v: value }]);
  });

  it('accepts a safe-integer number for a long and decodes it as bigint', () => {
    // Arrange
    const schema: AvroRecordSchema = { type: 'record', name: 'x', fields: [{ name: 'v', type: 'long' }] };

    // Act
    const records = decodeAvroFile(encodeAvroFile(schema, [{ v: -(2 ** 53 - 1) }])).records;

    // Assess
    expect(records).toEqual([{ v: -(2n ** 53n - 1n) }]);
  });

  it('writes the schema with its field ids and the caller metadata into the header', () => {
    // Act
    const bytes = encodeAvroFile(EVERY_TYPE, [], {
      metadata: { 'format-version': '2', 'avro.codec': 'deflate' },
      sync: SYNC,
    });
    const header = decodeAvroHeader(bytes);

    // Assess
    expect(header.metadata.get('format-version')).toBe('2');
    expect(header.metadata.get('avro.codec')).toBe('null');
    expect(JSON.parse(header.metadata.get('avro.schema') ?? '')).toEqual(EVERY_TYPE);
    expect(bytes.subarray(bytes.length - 16)).toEqual(SYNC);
    expect(decodeAvroFile(bytes).records).toEqual([]);
  });

  it('splits records into blocks when the block size is reached, and reads every block back', () => {
    // Arrange
    const schema: AvroRecordSchema = { type: 'record', name: 'x', fields: [{ name: 's', type: 'string' }] };
    const records = Array.from({ length: 500 }, (_, i) => ({ s: `row ${i}` }));

    // Act
    const bytes = encodeAvroFile(schema, records, { blockBytes: 100, sync: SYNC });

    // Assess
    const syncs = countOccurrences(bytes, SYNC);
    expect(syncs).toBeGreaterThan(10);
    expect(decodeAvroFile(bytes).records).toEqual(records);
    expect(icebirdRead(bytes).records).toEqual(records);
  });

  it('reads negatively counted array and map blocks with their byte sizes, and deflate blocks', () => {
    // Arrange: one array of 3 longs in two blocks (-2 with a size, then 1), then a map in one -1 block.
    const schema: AvroSchema = {
      type: 'record',
      name: 'x',
      fields: [
        { name: 'a', type: { type: 'array', items: 'long' } },
        { name: 'm', type: { type: 'map', values: 'string' } },
      ],
    };
    const record = [
      ...zz(-2),
      ...zz(2),
      ...zz(5),
      ...zz(-6),
      ...zz(1),
      ...zz(7),
      0,
      ...zz(-1),
      ...zz(4),
      ...str('k'),
      ...str('v'),
      0,
    ];

    // Act
    const plain = decodeAvroFile(
      container({
        schema,
        blocks: [
          { count: 1, data: record },
          { count: 2, data: [...record, ...record] },
        ],
      }),
    );
    const deflated = decodeAvroFile(
      container({ schema, codec: 'deflate', blocks: [{ count: 1, data: record }] }),
    );

    // Assess
    const expected = { a: [5n, -6n, 7n], m: new Map([['k', 'v']]) };
    expect(plain.records).toEqual([expected, expected, expected]);
    expect(deflated.records).toEqual([expected]);
  });

  it('round-trips a deflate file in several blocks', () => {
    // Arrange
    const records = Array.from({ length: 300 }, (_, i) =>
      everyType({ s: `row ${i} `.repeat(i % 5), l: BigInt(i) }),
    );

    // Act
    const bytes = encodeAvroFile(EVERY_TYPE, records, { codec: 'deflate', blockBytes: 2000 });
    const file = decodeAvroFile(bytes);

    // Assess
    expect(file.metadata.get('avro.codec')).toBe('deflate');
    expect(file.records).toEqual(records);
    expect((file.records[0] as { by: unknown }).by).toBeInstanceOf(Uint8Array);
    expect(Buffer.isBuffer((file.records[0] as { by: unknown }).by)).toBe(false);
  });

  it('refuses a deflate block inflating beyond the limit', () => {
    // Arrange
    const schema: AvroRecordSchema = { type: 'record', name: 'x', fields: [{ name: 's', type: 'string' }] };
    const bytes = encodeAvroFile(schema, [{ s: 'a'.repeat(5000) }], { codec: 'deflate' });

    // Act / Assess
    expect(() => decodeAvroFile(bytes, { maxInflatedBlockBytes: 4096 })).toThrow(
      /block 0 inflates to more than 4096 bytes/,
    );
    expect(decodeAvroFile(bytes).records).toEqual([{ s: 'a'.repeat(5000) }]);
  });

  it('reads a file written by icebird avroWrite', () => {
    // Arrange
    const schema = {
      type: 'record' as const,
      name: 'written_by_icebird',
      fields: [
        { name: 'id', type: 'long' as const },
        { name: 'name', type: ['null', 'string'] as ('null' | 'string')[] },
        { name: 'tags', type: { type: 'array' as const, items: 'int' as const } },
        { name: 'ok', type: 'boolean' as const },
        { name: 'score', type: 'double' as const },
      ],
    };
    const records = Array.from({ length: 40 }, (_, i) => ({
      id: BigInt(i) * 2n ** 40n - 7n,
      name: i % 3 === 0 ? null : `n${i} ✓`,
      tags: Array.from({ length: i % 4 }, (_, j) => j - 1),
      ok: i % 2 === 0,
      score: i / 8,
    }));

    // Act
    const file = decodeAvroFile(icebirdWrite(schema as never, records, 7));

    // Assess
    expect(file.records).toEqual(records);
  });

  describe('strict decoding', () => {
    const schema: AvroRecordSchema = {
      type: 'record',
      name: 'x',
      fields: [
        { name: 's', type: 'string' },
        { name: 'l', type: ['null', 'long'] },
      ],
    };
    const good = (): Uint8Array =>
      encodeAvroFile(
        schema,
        [
          { s: 'abc', l: 5n },
          { s: 'é', l: null },
        ],
        { sync: SYNC },
      );

    it('refuses every truncation of a file with an error naming the truncation', () => {
      // Arrange
      const bytes = good();
      const headerLength = decodeHeaderLength(bytes);

      // Act / Assess: every cut inside the header or a block fails; none decodes silently.
      for (let cut = 0; cut < bytes.length; cut++) {
        if (cut === headerLength) continue; // a header with no block is a valid empty file
        expect(() => decodeAvroFile(bytes.subarray(0, cut)), `cut at ${cut}`).toThrow(
          /Truncated|wrong magic|not JSON|no avro\.schema|block 0|claims \d+ items/,
        );
      }
      expect(decodeAvroFile(bytes.subarray(0, headerLength)).records).toEqual([]);
    });

    it.each([
      ['a wrong magic', (b: Uint8Array) => b.set([0x4f, 0x62, 0x6a, 0x02]), /wrong magic/],
      [
        'a sync mismatch',
        (b: Uint8Array) => b.set([0xff], b.length - 1),
        /block 0 sync marker does not match/,
      ],
    ])('refuses %s', (_name, damage, message) => {
      // Arrange
      const bytes = good();
      damage(bytes);

      // Act / Assess
      expect(() => decodeAvroFile(bytes)).toThrow(message);
      expect(errorOf(() => decodeAvroFile(bytes))).toMatchObject({
        code: AVRO_ERROR_CODE,
        name: 'AvroError',
      });
    });

    it.each([
      [
        'an unknown codec',
        container({ schema: 'int', codec: 'zstandard', blocks: [] }),
        /Unsupported Avro codec "zstandard"/,
      ],
      [
        'an unknown type',
        container({
          schema: { type: 'record', name: 'x', fields: [{ name: 'v', type: 'int128' }] },
          blocks: [],
        }),
        /x\.v: unknown type "int128"/,
      ],
      [
        'a recursive type',
        container({
          schema: { type: 'record', name: 'node', fields: [{ name: 'next', type: ['null', 'node'] }] },
          blocks: [],
        }),
        /recursive type node/,
      ],
      [
        'bytes left over in a block',
        container({ schema: 'int', blocks: [{ count: 1, data: [...zz(1), ...zz(2)] }] }),
        /block 0 has 1 bytes after its 1 records/,
      ],
      [
        'a block with more records than bytes',
        container({ schema: 'int', blocks: [{ count: 3, data: [...zz(1), ...zz(2)] }] }),
        /block 0: record count claims 3 items with 2 bytes left/,
      ],
      [
        'a union index out of range',
        container({ schema: ['null', 'int'], blocks: [{ count: 1, data: zz(2) }] }),
        /union index 2 is out of range/,
      ],
      [
        'an int that does not fit 32 bits',
        container({ schema: 'int', blocks: [{ count: 1, data: zz(2 ** 31) }] }),
        /does not fit an int/,
      ],
      [
        'an enum index out of range',
        container({
          schema: { type: 'enum', name: 'e', symbols: ['A'] },
          blocks: [{ count: 1, data: zz(1) }],
        }),
        /enum index 1/,
      ],
      [
        'a boolean byte other than 0 or 1',
        container({ schema: 'boolean', blocks: [{ count: 1, data: [2] }] }),
        /boolean byte is 2/,
      ],
      [
        'invalid UTF-8 in a string',
        container({ schema: 'string', blocks: [{ count: 1, data: [...zz(1), 0xff] }] }),
        /not valid UTF-8/,
      ],
      [
        'a varint longer than 10 bytes',
        container({ schema: 'long', blocks: [{ count: 1, data: [...Array(10).fill(0xff), 1] }] }),
        /longer than 10 bytes/,
      ],
      [
        'a different sync marker in a block',
        container({ schema: 'int', blockSync: new Uint8Array(16), blocks: [{ count: 1, data: zz(1) }] }),
        /sync marker does not match/,
      ],
      [
        'an array count beyond the bytes left',
        container({
          schema: { type: 'array', items: 'null' },
          blocks: [{ count: 1, data: [...zz(2 ** 40), 0] }],
        }),
        /claims 1099511627776 items with 1 bytes left/,
      ],
      [
        'a record count beyond the block size',
        container({ schema: 'null', blocks: [{ count: 2 ** 40, data: [] }] }),
        /record count claims 1099511627776 items with 0 bytes left/,
      ],
      ['a deflate block that is not deflate', corruptDeflate(), /block 0 is not valid deflate data/],
    ])('refuses %s', (_name, bytes, message) => {
      // Act / Assess
      expect(() => decodeAvroFile(bytes)).toThrow(message);
      expect(errorOf(() => decodeAvroFile(bytes))).toMatchObject({ code: AVRO_ERROR_CODE });
    });
  });

  describe('strict encoding', () => {
    it.each([
      ['an int out of range', { i: 2 ** 31 }, /every_type\.i: expected an int, got number/],
      ['a fractional long', { l: 1.5 }, /every_type\.l: expected a long/],
      ['a long beyond 64 bits', { l: 2n ** 63n }, /every_type\.l: expected a long/],
      ['a string for bytes', { by: 'ab' }, /every_type\.by: expected bytes/],
      [
        'a fixed of the wrong size',
        { fx: Uint8Array.of(1) },
        /every_type\.fx: expected fixed md5 of 4 bytes/,
      ],
      ['an unknown enum symbol', { e: 'BLUE' }, /every_type\.e: expected a symbol of enum color/],
      ['a value no union branch takes', { u: true }, /every_type\.u: expected one of/],
      [
        'a missing field without default',
        { s: undefined },
        /every_type\.s: missing, and the field has no default/,
      ],
    ])('refuses %s, naming the field', (_name, overrides, message) => {
      // Act / Assess
      expect(() => encodeAvroFile(EVERY_TYPE, [everyType(overrides)])).toThrow(message);
    });

    it('writes a field default for a missing value', () => {
      // Act
      const records = decodeAvroFile(encodeAvroFile(EVERY_TYPE, [everyType({ u: undefined })])).records;

      // Assess
      expect(records).toEqual([everyType({ u: null })]);
    });

    it.each([
      [
        'an unknown type name',
        { type: 'record', name: 'x', fields: [{ name: 'v', type: 'uuid4' }] },
        /x\.v: unknown type "uuid4"/,
      ],
      ['a nested union', ['null', ['int', 'long']], /a union directly inside a union/],
      [
        'a type defined twice',
        {
          type: 'record',
          name: 'x',
          fields: [
            { name: 'a', type: { type: 'fixed', name: 'f', size: 1 } },
            { name: 'b', type: { type: 'fixed', name: 'f', size: 2 } },
          ],
        },
        /type f is defined twice/,
      ],
      ['a schema nested too deep', deepSchema(40), /nests deeper than 32/],
    ])('refuses a schema with %s', (_name, schema, message) => {
      // Act / Assess
      expect(() => compileSchema(schema as AvroSchema)).toThrow(message);
    });
  });

  it('decodes records as objects inheriting nothing when a field is named __proto__', () => {
    // Arrange
    const schema: AvroSchema = { type: 'record', name: 'x', fields: [{ name: '__proto__', type: 'string' }] };
    const bytes = container({ schema, blocks: [{ count: 1, data: str('polluted') }] });

    // Act
    const [record] = decodeAvroFile(bytes).records as Record<string, unknown>[];

    // Assess
    expect(record instanceof Object).toBe(false);
    expect('toString' in (record as object)).toBe(false);
    expect(Object.getOwnPropertyDescriptor(record, '__proto__')?.value).toBe('polluted');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

function errorOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

function countOccurrences(bytes: Uint8Array, part: Uint8Array): number {
  let count = 0;
  for (let i = 0; i + part.length <= bytes.length; i++) {
    if (part.every((b, j) => bytes[i + j] === b)) count++;
  }
  return count;
}

/** Offset just after the header's sync marker (the first block starts there). */
function decodeHeaderLength(bytes: Uint8Array): number {
  for (let i = 0; i + 16 <= bytes.length; i++) {
    if (SYNC.every((b, j) => bytes[i + j] === b)) return i + 16;
  }
  throw new Error('no sync marker');
}

function corruptDeflate(): Uint8Array {
  const bytes = [
    0x4f,
    0x62,
    0x6a,
    0x01,
    ...zz(2),
    ...str('avro.schema'),
    ...str('"int"'),
    ...str('avro.codec'),
    ...str('deflate'),
    0,
    ...SYNC,
  ];
  bytes.push(...zz(1), ...zz(3), 0xff, 0xff, 0xff, ...SYNC);
  return Uint8Array.from(bytes);
}

function deepSchema(depth: number): AvroSchema {
  let schema: AvroSchema = 'int';
  for (let i = 0; i < depth; i++) schema = { type: 'array', items: schema };
  return schema;
}
