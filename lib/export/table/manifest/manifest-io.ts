import { readObject } from '../../../stores';
import { TableInvalidError } from '../../errors';
import { keyOf, metadataKey, type TableLocation, uriOf } from '../metadata/location';
import type { ManifestEntry, ManifestFile, Snapshot } from '../metadata/types';
import { decodeManifest, decodeManifestList } from './manifest-codec';

/**
 * The object store requests of one table operation, and the files it wrote (deleted again
 * when its commit does not land).
 */
export interface TableIo {
  location: TableLocation;
  /** Store and catalog requests made (each load, read, write, commit and delete counts one). */
  requests: number;
  /** Keys this operation wrote. */
  written: string[];
}

export function tableIo(location: TableLocation): TableIo {
  return { location, requests: 0, written: [] };
}

/** A file the table names; a store failure passes as it is (it may be transient). */
async function readTableFile(io: TableIo, uri: string): Promise<Uint8Array> {
  const key = keyOf(io.location, uri);
  io.requests++;
  return await readObject(io.location.store, key);
}

/** The manifests of a snapshot (none for a snapshot without a list). */
export async function readManifestList(io: TableIo, snapshot: Snapshot): Promise<ManifestFile[]> {
  const uri = snapshot['manifest-list'];
  const bytes = await readTableFile(io, uri);
  try {
    return decodeManifestList(bytes);
  } catch (error) {
    throw new TableInvalidError(`Table ${io.location.uri}: the manifest list ${uri} cannot be read`, {
      cause: error,
    });
  }
}

/**
 * A manifest's entries, with the sequence numbers an ADDED entry inherits from the manifest
 * list filled in: an entry this writer carries over as EXISTING or DELETED must carry them.
 */
export async function readManifest(io: TableIo, manifest: ManifestFile): Promise<ManifestEntry[]> {
  const uri = manifest.manifest_path;
  const bytes = await readTableFile(io, uri);
  let entries: ManifestEntry[];
  try {
    entries = decodeManifest(bytes);
  } catch (error) {
    throw new TableInvalidError(`Table ${io.location.uri}: the manifest ${uri} cannot be read`, {
      cause: error,
    });
  }
  for (const entry of entries) {
    entry.sequence_number ??= manifest.sequence_number;
    entry.file_sequence_number ??= manifest.sequence_number;
    entry.snapshot_id ??= manifest.added_snapshot_id;
  }
  return entries;
}

/** Manifests read at once. */
const READ_CONCURRENCY = 8;

/**
 * Reads `manifests` (a few at once) and hands each one's entries to `each`, in list order;
 * at most READ_CONCURRENCY manifests' entries are held at a time beyond what `each` keeps.
 */
export async function forEachManifest(
  io: TableIo,
  manifests: readonly ManifestFile[],
  each: (entries: ManifestEntry[], manifest: ManifestFile) => void,
): Promise<void> {
  for (let i = 0; i < manifests.length; i += READ_CONCURRENCY) {
    const batch = manifests.slice(i, i + READ_CONCURRENCY);
    const read = await Promise.all(batch.map((m) => readManifest(io, m)));
    for (const [j, entries] of read.entries()) each(entries, batch[j] as ManifestFile);
  }
}

/**
 * Writes a metadata-side file (manifest, manifest list) under `metadata/`, create-only
 * (`If-None-Match: *` on S3): a table file is never overwritten, so no writer can change what
 * a snapshot names (a bucket policy can deny every other write there). Its name is fresh (a
 * uuid); an object already there is this write's own, retried after a lost reply, or a
 * refusal. Resolves with its URI and size.
 */
export async function writeTableFile(
  io: TableIo,
  name: string,
  bytes: Uint8Array,
): Promise<{ uri: string; length: number }> {
  const key = metadataKey(io.location, name);
  io.requests++;
  const created = await io.location.store.putIfAbsent(key, bytes, {
    contentType: 'application/octet-stream',
  });
  if (created === undefined) {
    io.requests++;
    const there = await readObject(io.location.store, key).catch(() => undefined);
    if (there === undefined || Buffer.compare(Buffer.from(there), Buffer.from(bytes)) !== 0) {
      throw new TableInvalidError(
        `Table ${io.location.uri}: ${key} exists already with other bytes; table files are never overwritten`,
      );
    }
  }
  io.written.push(key);
  return { uri: uriOf(io.location, key), length: bytes.byteLength };
}

/** Deletes what `io` wrote, best effort (a file left over is an orphan no snapshot names). */
export async function deleteWritten(io: TableIo): Promise<void> {
  const keys = io.written.splice(0);
  if (keys.length === 0) return;
  io.requests++;
  await io.location.store.deleteMany(keys).catch(() => undefined);
}

/**
 * Deletes files of `uris` this operation wrote and no longer lists (merged away before any
 * snapshot named them), best effort; the rest of what it wrote stays recorded.
 */
export async function discardWritten(io: TableIo, uris: readonly string[]): Promise<void> {
  const keys = new Set(uris.map((uri) => keyOf(io.location, uri)));
  const discarded = io.written.filter((key) => keys.has(key));
  if (discarded.length === 0) return;
  io.written = io.written.filter((key) => !keys.has(key));
  io.requests++;
  await io.location.store.deleteMany(discarded).catch(() => undefined);
}
