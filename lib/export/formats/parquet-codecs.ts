/**
 * The Parquet compression codecs the export writes, apart from the encoder (which loads
 * hyparquet-writer) so that option specs and settings can name them without loading it.
 */
export const PARQUET_CODECS = { snappy: 'SNAPPY', zstd: 'ZSTD', uncompressed: 'UNCOMPRESSED' } as const;
export type ParquetCodec = (typeof PARQUET_CODECS)[keyof typeof PARQUET_CODECS];
