import { ByteWriter } from 'hyparquet-writer';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';
import { snappyCompress } from 'hyparquet-writer/src/snappy.js';

/**
 * The internals of hyparquet-writer the Parquet encoder reuses. They are not its public
 * API (deep imports of `src/*.js`), so the dependency is pinned to an exact version and
 * their behaviour is checked once, when this module loads, against bytes recorded from
 * that version: a changed or missing routine fails at import with a message naming the
 * pin, instead of writing files no reader can open.
 */
export const PINNED_HYPARQUET_WRITER = '0.17.0';

export interface ParquetPrimitives {
  ByteWriter: typeof ByteWriter;
  writePageHeader: typeof writePageHeader;
  writeRleBitPackedHybrid: typeof writeRleBitPackedHybrid;
  writeMetadata: typeof writeMetadata;
  snappyCompress: typeof snappyCompress;
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/** Each routine on a fixed input, and the bytes hyparquet-writer 0.17.0 gives for it. */
const GOLDEN: { name: keyof ParquetPrimitives; run: (p: ParquetPrimitives) => string; bytes: string }[] = [
  {
    // parquet-values.ts writes PLAIN values straight into a ByteWriter's fields.
    name: 'ByteWriter',
    run: (p) => {
      const w = new p.ByteWriter(2);
      w.appendUint8(7);
      w.ensure(16);
      const fields =
        w.buffer instanceof ArrayBuffer && w.view instanceof DataView && w.view.buffer === w.buffer;
      return `${fields}:${w.index}:${w.offset}:${w.buffer.byteLength >= 17}:${hex(w.getBytes())}`;
    },
    bytes: 'true:1:1:true:07',
  },
  {
    name: 'writeRleBitPackedHybrid',
    run: (p) => {
      const w = new p.ByteWriter();
      const length = p.writeRleBitPackedHybrid(w, new Uint8Array([1, 1, 1, 1, 1, 1, 1, 1, 0, 1]), 1);
      return `${length}:${hex(w.getBytes())}`;
    },
    bytes: '4:10010302',
  },
  {
    name: 'snappyCompress',
    run: (p) => hex(p.snappyCompress(new TextEncoder().encode('abcabcabcabcabcabcabc'))),
    bytes: '1508616263460300',
  },
  {
    name: 'writePageHeader',
    run: (p) => {
      const w = new p.ByteWriter();
      p.writePageHeader(w, {
        type: 'DATA_PAGE',
        uncompressed_page_size: 10,
        compressed_page_size: 8,
        data_page_header: {
          num_values: 3,
          encoding: 'PLAIN',
          definition_level_encoding: 'RLE',
          repetition_level_encoding: 'RLE',
        },
      });
      return hex(w.getBytes());
    },
    bytes: '1500151415102c15061500150615060000',
  },
  {
    name: 'writeMetadata',
    run: (p) => {
      const w = new p.ByteWriter();
      p.writeMetadata(w, {
        version: 1,
        schema: [
          { name: 'schema', num_children: 1 },
          { name: 'a', type: 'INT32', repetition_type: 'REQUIRED' },
        ],
        num_rows: 0n,
        row_groups: [],
      } as unknown as Parameters<typeof writeMetadata>[1]);
      return hex(w.getBytes());
    },
    bytes: '1502192c4806736368656d61150200150225001801610016001900391c1c00000021000000',
  },
];

/** Throws, naming the pin, when a routine is missing or no longer gives the recorded bytes. */
export function checkParquetPrimitives(primitives: ParquetPrimitives): void {
  const broken: string[] = [];
  for (const [name, value] of Object.entries(primitives)) {
    if (typeof value !== 'function') broken.push(`${name} is missing`);
  }
  if (broken.length === 0) {
    for (const golden of GOLDEN) {
      let got: string;
      try {
        got = golden.run(primitives);
      } catch (error) {
        got = `throws ${(error as Error).message}`;
      }
      if (got !== golden.bytes) broken.push(`${golden.name} changed`);
    }
  }
  if (broken.length > 0) {
    throw new Error(
      `hyparquet-writer internals differ from version ${PINNED_HYPARQUET_WRITER}, which the Parquet ` +
        `encoder is built on (${broken.join(', ')}): install exactly ${PINNED_HYPARQUET_WRITER} ` +
        'or port lib/export/formats/parquet-encoder.ts',
    );
  }
}

/** The checked routines; importing this module fails when they are not the pinned ones. */
export const PARQUET_PRIMITIVES: ParquetPrimitives = {
  ByteWriter,
  writePageHeader,
  writeRleBitPackedHybrid,
  writeMetadata,
  snappyCompress,
};
checkParquetPrimitives(PARQUET_PRIMITIVES);
