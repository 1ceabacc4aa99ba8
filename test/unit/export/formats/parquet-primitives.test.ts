import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  checkParquetPrimitives,
  PARQUET_PRIMITIVES,
  type ParquetPrimitives,
  PINNED_HYPARQUET_WRITER,
} from '../../../../lib/export/formats/parquet-primitives';

async function json(path: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(new URL(path, import.meta.url), 'utf8')) as Record<string, unknown>;
}

describe('parquet primitives', () => {
  it('pins hyparquet-writer to the exact version the encoder was built on when installed', async () => {
    // Act
    const manifest = await json('../../../../package.json');
    const installed = await json('../../../../node_modules/hyparquet-writer/package.json');

    // Assess
    expect((manifest.dependencies as Record<string, string>)['hyparquet-writer']).toBe(
      PINNED_HYPARQUET_WRITER,
    );
    expect(installed.version).toBe(PINNED_HYPARQUET_WRITER);
  });

  it('accepts the installed routines when they give the recorded bytes', () => {
    // Act
    const check = () => checkParquetPrimitives(PARQUET_PRIMITIVES);

    // Assess
    expect(check).not.toThrow();
  });

  it.each([
    { name: 'a routine is missing', change: { snappyCompress: undefined } },
    { name: 'the RLE encoder writes other bytes', change: { writeRleBitPackedHybrid: () => 0 } },
    {
      name: 'the page header writer throws',
      change: {
        writePageHeader: () => {
          throw new Error('no');
        },
      },
    },
    { name: 'snappy returns its input', change: { snappyCompress: (b: Uint8Array) => b } },
  ])('fails naming the pinned version when $name', ({ change }) => {
    // Prepare
    const primitives = { ...PARQUET_PRIMITIVES, ...change } as unknown as ParquetPrimitives;

    // Act
    const check = () => checkParquetPrimitives(primitives);

    // Assess
    expect(check).toThrow(`hyparquet-writer internals differ from version ${PINNED_HYPARQUET_WRITER}`);
  });
});
