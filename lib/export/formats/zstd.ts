import * as nodeZlib from 'node:zlib';

type Codec = (input: Uint8Array) => Uint8Array;

/**
 * ZSTD from node:zlib exists only on Node >= 22.15 (Lambda's nodejs22.x has it; this
 * machine's Node 20 does not). Looked up at run time so the module loads on both.
 */
export const zlib: { zstdCompress: Codec | undefined; zstdDecompress: Codec | undefined } = {
  zstdCompress: codecOf('zstdCompressSync'),
  zstdDecompress: codecOf('zstdDecompressSync'),
};

function codecOf(name: 'zstdCompressSync' | 'zstdDecompressSync'): Codec | undefined {
  const fn = (nodeZlib as unknown as Record<typeof name, ((b: Uint8Array) => Buffer) | undefined>)[name];
  return fn === undefined ? undefined : (b: Uint8Array) => fn(b);
}

/** Whether this runtime can write ZSTD. */
export function zstdAvailable(): boolean {
  return zlib.zstdCompress !== undefined;
}
