import { parquetReadObjects } from 'hyparquet';
import { type ObjectStore, readObject, readObjectIfPresent } from '../../stores/object-store';
import { zlib } from '../formats/zstd';
import { manifestKey, type OutputLayout, partitionPrefix } from '../layout';
import type { CallTotals, ExportLogger } from '../types';

/** What the shrink guard and the dataset check read of a published partition. */
export interface PublishedPartition {
  /** Rows its Parquet manifest (Hive layout) or its live data files (a table) say it has. */
  rows: number;
  /**
   * The calls its rows count (a summary partition; see CallTotals): from its manifest, or,
   * for a manifest written before manifests carried them, summed from its Parquet parts.
   * Undefined for a call list, or when neither could be read (then logged).
   */
  calls?: number;
}

/**
 * What is published of one of the report's days, or undefined when nothing is: read from the
 * Parquet manifests of the Hive layout (manifestLookup) or from a table's current snapshot
 * (publish/table-publish.ts). `calls` asks for the calls its rows count (a summary).
 */
export type PublishedLookup = (
  dt: string,
  options: { calls: boolean },
) => Promise<PublishedPartition | undefined>;

/** The Hive layout's lookup: each day's Parquet manifest (readPublishedPartition). */
export function manifestLookup(
  store: ObjectStore,
  layout: OutputLayout,
  logger: ExportLogger | undefined,
): PublishedLookup {
  return (dt, options) => readPublishedPartition(store, layout, dt, { ...options, logger });
}

/**
 * Reads a published partition's Parquet manifest (the commit marker promotion writes last
 * of each format); undefined when there is none, or when it does not parse (logged: the
 * partition is then not guarded). With `calls`, also what its rows count.
 */
export async function readPublishedPartition(
  store: ObjectStore,
  layout: OutputLayout,
  dt: string,
  options: { calls: boolean; logger: ExportLogger | undefined },
): Promise<PublishedPartition | undefined> {
  const key = manifestKey(layout, 'parquet', dt);
  const bytes = await readObjectIfPresent(store, key);
  if (bytes === undefined) return undefined;
  let manifest: { rows?: unknown; callTotals?: unknown; files?: unknown } | undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(bytes).toString('utf8'));
    if (typeof parsed === 'object' && parsed !== null) manifest = parsed;
  } catch {
    // reported below
  }
  const rows = manifest?.rows;
  if (manifest === undefined || typeof rows !== 'number' || !Number.isInteger(rows) || rows < 0) {
    options.logger?.warn(
      'A published manifest does not say its rows; the shrink guard does not apply to it',
      {
        key,
      },
    );
    return undefined;
  }
  if (!options.calls) return { rows };
  const recorded = callsOf(manifest.callTotals);
  if (recorded !== undefined || rows === 0) return { rows, calls: recorded ?? 0 };
  // A manifest of a version before callTotals: the parts it names say what was published.
  try {
    return { rows, calls: await callsInFiles(store, partKeys(layout, dt, manifest.files)) };
  } catch (error) {
    options.logger?.warn(
      "A published summary's calls could not be read from its manifest or its parts; the shrink guard judges it by rows",
      { key, error: error instanceof Error ? error.message : String(error) },
    );
    return { rows };
  }
}

/** The calls a manifest's `callTotals` count; undefined when it has none (or not three counts). */
function callsOf(totals: unknown): number | undefined {
  if (typeof totals !== 'object' || totals === null) return undefined;
  const { ans, ref, lost } = totals as Partial<Record<keyof CallTotals, unknown>>;
  let calls = 0;
  for (const n of [ans, ref, lost]) {
    if (typeof n !== 'number' || !Number.isSafeInteger(n)) return undefined;
    calls += n;
  }
  return calls;
}

/** The keys of the Parquet parts a manifest lists. */
function partKeys(layout: OutputLayout, dt: string, files: unknown): string[] {
  if (!Array.isArray(files)) throw new Error('the manifest lists no files');
  return (files as { name?: unknown }[]).map((file) => {
    if (typeof file?.name !== 'string') throw new Error('a file of the manifest has no name');
    return `${partitionPrefix(layout, 'parquet', dt)}/${file.name}`;
  });
}

/** Sums `ans`, `ref` and `lost` over Parquet files (a summary day's: small). */
export async function callsInFiles(store: ObjectStore, keys: readonly string[]): Promise<number> {
  const zstd = zlib.zstdDecompress;
  let calls = 0;
  for (const key of keys) {
    const bytes = await readObject(store, key);
    const rows = await parquetReadObjects({
      file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
      columns: ['ans', 'ref', 'lost'],
      ...(zstd === undefined ? {} : { compressors: { ZSTD: (input: Uint8Array) => zstd(input) } }),
    });
    for (const row of rows) {
      for (const v of [row.ans, row.ref, row.lost]) if (typeof v === 'number') calls += v;
    }
  }
  return calls;
}
