import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import {
  checkKey,
  invalidKey,
  type MachineLocalStore,
  OBJECT_STORE_ERROR_CODES,
  type ObjectBody,
  type ObjectInfo,
  type ObjectStore,
  ObjectStoreError,
} from './object-store';

/** Temp files carry this marker; listings skip them, so a crashed write is never seen. */
const TEMP_MARKER = '.~tmp-';
/** What a write appends to the key's last segment for its temp file: the marker and a UUID. */
const TEMP_SUFFIX_BYTES = TEMP_MARKER.length + 36;
/** Longest file name (bytes) of the file systems this runs on (ext4, xfs, APFS, tmpfs). */
const NAME_MAX = 255;

/**
 * ObjectStore on a local directory. Each write goes to a temp file in the target's
 * directory, is fsynced, then renamed over the target: rename(2) within one file system
 * is atomic, so readers see the old or the new file, never a partial one.
 */
export class LocalDirectoryStore implements ObjectStore, MachineLocalStore {
  readonly root: string;
  /** `file:///<root>` (the root's path percent-encoded as a file URL; keys appended as they are). */
  readonly rootUri: string;
  /** Its files are on this machine: a dead run's staging is recovered by the next run here. */
  readonly machineLocal = true;

  constructor(root: string) {
    this.root = path.resolve(root);
    this.rootUri = pathToFileURL(this.root).href.replace(/\/+$/, '');
  }

  /**
   * The file of a key. Keys this store cannot hold fail here, before any directory is
   * made: a segment longer than a file name may be (the last one also carries the temp
   * suffix while written), or one with the temp marker, which listings would hide.
   */
  #path(key: string): string {
    checkKey(key);
    const segments = key.split('/');
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i] as string;
      const limit = i === segments.length - 1 ? NAME_MAX - TEMP_SUFFIX_BYTES : NAME_MAX;
      if (Buffer.byteLength(segment) > limit) {
        throw invalidKey(
          key,
          `a segment is longer than ${limit} bytes, more than a local file name may hold`,
        );
      }
      if (segment.includes(TEMP_MARKER)) {
        throw invalidKey(
          key,
          `a segment contains ${JSON.stringify(TEMP_MARKER)}, the local store's temp-file marker`,
        );
      }
    }
    return path.join(this.root, ...segments);
  }

  async put(key: string, body: ObjectBody): Promise<ObjectInfo> {
    return this.#replace(key, 'put', fillFrom(body));
  }

  /**
   * Writes the temp file whole and durable, then link(2)s it to the key: link fails with
   * EEXIST when the key exists, so of racing writers one creates it and never a part.
   */
  async putIfAbsent(key: string, body: ObjectBody): Promise<ObjectInfo | undefined> {
    return this.#write(key, 'putIfAbsent', fillFrom(body), createExclusive);
  }

  async putFile(key: string, file: string): Promise<ObjectInfo> {
    return this.#replace(key, 'putFile', copyFrom(file, key, 'putFile'));
  }

  /** Copies the file to a temp file, then link(2)s it to the key, as putIfAbsent does. */
  async putFileIfAbsent(key: string, file: string): Promise<ObjectInfo | undefined> {
    return this.#write(key, 'putFileIfAbsent', copyFrom(file, key, 'putFileIfAbsent'), createExclusive);
  }

  /** A write that replaces the key (put, putFile): it always places its file. */
  async #replace(key: string, operation: string, fill: (temp: string) => Promise<void>): Promise<ObjectInfo> {
    return (await this.#write(key, operation, fill, replace)) as ObjectInfo;
  }

  /**
   * Fills a temp file beside the key, makes it durable and places it at the key (`place`
   * resolves false when it would not: the key exists, for an exclusive create).
   */
  async #write(
    key: string,
    operation: string,
    fill: (temp: string) => Promise<void>,
    place: (temp: string, target: string) => Promise<boolean>,
  ): Promise<ObjectInfo | undefined> {
    const target = this.#path(key);
    const temp = `${target}${TEMP_MARKER}${randomUUID()}`;
    try {
      await inDirectoryOf(target, () => fill(temp));
      await syncFile(temp);
      const { size } = await fs.stat(temp);
      const placed = await place(temp, target);
      await fs.rm(temp, { force: true });
      if (!placed) return undefined;
      await syncDirectory(path.dirname(target));
      return { key, size };
    } catch (cause) {
      await fs.rm(temp, { force: true });
      throw wrap(cause, operation, key);
    }
  }

  async get(key: string): Promise<AsyncIterable<Uint8Array>> {
    const file = this.#path(key);
    try {
      // Open first so a missing object fails here, not on first read.
      const handle = await fs.open(file, 'r');
      return createReadStream(file, { fd: handle, autoClose: true });
    } catch (cause) {
      throw wrap(cause, 'get', key);
    }
  }

  /** Bytes `start` to `end` (exclusive) of an object: a committer reads a Parquet footer so. */
  async getRange(key: string, start: number, end: number): Promise<Uint8Array> {
    const chunks: Uint8Array[] = [];
    if (end > start) {
      for await (const chunk of await this.#range(key, start, end - 1)) chunks.push(chunk as Uint8Array);
    }
    return Buffer.concat(chunks);
  }

  async #range(key: string, start: number, last: number): Promise<AsyncIterable<Uint8Array>> {
    const file = this.#path(key);
    try {
      const handle = await fs.open(file, 'r');
      return createReadStream(file, { fd: handle, autoClose: true, start, end: last });
    } catch (cause) {
      throw wrap(cause, 'get', key);
    }
  }

  async head(key: string): Promise<ObjectInfo | undefined> {
    try {
      const stat = await fs.stat(this.#path(key));
      return stat.isFile() ? { key, size: stat.size } : undefined;
    } catch (cause) {
      if (isNotFound(cause)) return undefined;
      throw wrap(cause, 'head', key);
    }
  }

  async *list(prefix: string): AsyncIterable<ObjectInfo> {
    // Walk from the deepest directory the prefix names, filter the rest by string prefix.
    const slash = prefix.lastIndexOf('/');
    const base = slash < 0 ? '' : prefix.slice(0, slash);
    if (base !== '') checkKey(base);
    const keys: ObjectInfo[] = [];
    await this.#walk(base, prefix, keys);
    keys.sort((a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)));
    yield* keys;
  }

  async #walk(dirKey: string, prefix: string, out: ObjectInfo[]): Promise<void> {
    const dir = dirKey === '' ? this.root : path.join(this.root, ...dirKey.split('/'));
    let entries: import('node:fs').Dirent[];
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch (cause) {
      if (isNotFound(cause)) return;
      throw wrap(cause, 'list', prefix);
    }
    for (const entry of entries) {
      const key = dirKey === '' ? entry.name : `${dirKey}/${entry.name}`;
      if (entry.isDirectory()) {
        if (key.startsWith(prefix) || prefix.startsWith(`${key}/`)) await this.#walk(key, prefix, out);
      } else if (entry.isFile() && !entry.name.includes(TEMP_MARKER) && key.startsWith(prefix)) {
        // Deleted since the directory was read (another writer): a listing, like S3's, is of
        // a moment, and a key gone by its stat is simply not in it.
        const stat = await fs.stat(path.join(dir, entry.name)).catch((cause: unknown) => {
          if (isNotFound(cause)) return undefined;
          throw wrap(cause, 'list', prefix);
        });
        if (stat !== undefined) out.push({ key, size: stat.size });
      }
    }
  }

  /**
   * Deletes the temporary files of writes that never finished under `prefix` (their process
   * was killed between writing and renaming): listings never show them, so nothing else
   * would. Only for a prefix no live process writes to (the caller knows its writer has
   * ended). Resolves with the names of the files removed, relative to the root.
   */
  async removeUnfinishedWrites(prefix: string): Promise<string[]> {
    const slash = prefix.lastIndexOf('/');
    const base = slash < 0 ? '' : prefix.slice(0, slash);
    if (base !== '') checkKey(base);
    const dir = base === '' ? this.root : path.join(this.root, ...base.split('/'));
    let names: string[];
    try {
      names = (await fs.readdir(dir, { recursive: true })).map(String);
    } catch (cause) {
      if (isNotFound(cause)) return [];
      throw wrap(cause, 'list', prefix);
    }
    const removed: string[] = [];
    for (const name of names) {
      const key = [base, ...name.split(path.sep)].filter((s) => s !== '').join('/');
      if (!path.basename(name).includes(TEMP_MARKER) || !key.startsWith(prefix)) continue;
      await fs.rm(path.join(dir, name), { force: true });
      removed.push(key);
    }
    return removed;
  }

  async deleteMany(keys: readonly string[]): Promise<void> {
    const parents = new Set<string>();
    for (const key of keys) {
      try {
        const file = this.#path(key);
        await fs.rm(file, { force: true });
        parents.add(path.dirname(file));
      } catch (cause) {
        throw wrap(cause, 'delete', key);
      }
    }
    // A key space has no folders: remove the directories the deletes left empty, as S3
    // shows no prefix once its last object is gone (a run's staging leaves none behind).
    for (const dir of [...parents].sort((a, b) => b.length - a.length)) await this.#pruneEmpty(dir);
  }

  /** Removes `dir` and its ancestors below the root while they are empty. */
  async #pruneEmpty(dir: string): Promise<void> {
    for (let d = dir; d.startsWith(`${this.root}${path.sep}`); d = path.dirname(d)) {
      try {
        await fs.rmdir(d);
      } catch {
        return; // not empty (or already gone, or in use by a concurrent write): stop here
      }
    }
  }

  async copy(fromKey: string, toKey: string): Promise<void> {
    const source = this.#path(fromKey);
    const target = this.#path(toKey);
    const temp = `${target}${TEMP_MARKER}${randomUUID()}`;
    try {
      // A missing source is told apart from a pruned target directory (retried) before linking.
      await fs.access(source);
      // Objects are never modified in place (every write renames a new file over the
      // key), so a hard link is an independent copy: O(1), and already durable.
      await inDirectoryOf(target, async () => {
        try {
          await fs.link(source, temp);
        } catch (linkError) {
          if (isNotFound(linkError)) throw linkError;
          await fs.copyFile(source, temp);
          await syncFile(temp);
        }
      });
      await fs.rename(temp, target);
      // When the target already is a link to the source's file (a backup restored over a key
      // never replaced), rename(2) does nothing and leaves the temporary link: remove it.
      await fs.rm(temp, { force: true });
      await syncDirectory(path.dirname(target));
    } catch (cause) {
      await fs.rm(temp, { force: true });
      throw wrap(cause, 'copy', fromKey);
    }
  }
}

/**
 * Attempts of {@link inDirectoryOf}: each one lost only to a delete that pruned the directory
 * in the instant between its mkdir and its file, so a few always suffice.
 */
const DIRECTORY_ATTEMPTS = 8;

/**
 * Makes `file`'s directory and runs `create` (which makes a file in it). A concurrent
 * deleteMany prunes the directories it leaves empty, and may take this one between the
 * mkdir and the create (ENOENT from either): the directory is made again, a bounded number
 * of times, as S3 has no folders to lose.
 */
async function inDirectoryOf(file: string, create: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await fs.mkdir(path.dirname(file), { recursive: true });
      await create();
      return;
    } catch (error) {
      if (!isNotFound(error) || attempt >= DIRECTORY_ATTEMPTS) throw error;
    }
  }
}

/** A put's fill: the body streamed into the (new) temp file. */
function fillFrom(body: ObjectBody): (temp: string) => Promise<void> {
  return async (temp) => {
    const source =
      typeof body === 'string' || body instanceof Uint8Array ? Readable.from([Buffer.from(body)]) : body;
    await pipeline(source, createWriteStream(temp, { flags: 'wx' }));
  };
}

/** rename(2) over the key: atomic replacement (the temp name is gone after). */
async function replace(temp: string, target: string): Promise<boolean> {
  await fs.rename(temp, target);
  return true;
}

/** link(2) to the key: atomic and exclusive, false when the key exists (the temp is removed after). */
async function createExclusive(temp: string, target: string): Promise<boolean> {
  try {
    await fs.link(temp, target);
    return true;
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === 'EEXIST') return false;
    throw error;
  }
}

/** Flushes a file (or a directory's entries) to disk. */
async function syncFile(file: string): Promise<void> {
  const handle = await fs.open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function syncDirectory(dir: string): Promise<void> {
  // Makes the rename durable; some platforms cannot open directories, which is fine.
  try {
    await syncFile(dir);
  } catch {
    // best effort
  }
}

function isNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function wrap(cause: unknown, operation: string, key: string): ObjectStoreError {
  if (cause instanceof ObjectStoreError) return cause;
  if (isNotFound(cause)) {
    return new ObjectStoreError(OBJECT_STORE_ERROR_CODES.notFound, `${operation}: no object ${key}`, {
      key,
      cause,
    });
  }
  return new ObjectStoreError(OBJECT_STORE_ERROR_CODES.failed, `${operation} failed for ${key}`, {
    key,
    cause,
  });
}

/** Fills a temp file with a copy of a local file (in the kernel); names the file when it is missing. */
function copyFrom(file: string, key: string, operation: string): (temp: string) => Promise<void> {
  return async (temp) => {
    try {
      await fs.copyFile(file, temp, fs.constants.COPYFILE_EXCL);
    } catch (cause) {
      // ENOENT of a file that is there: the temp's directory was pruned (tried again).
      if (
        !isNotFound(cause) ||
        (await fs.access(file).then(
          () => true,
          () => false,
        ))
      )
        throw cause;
      throw new ObjectStoreError(
        OBJECT_STORE_ERROR_CODES.failed,
        `${operation}: no local file ${file} for ${key}`,
        {
          key,
          cause,
        },
      );
    }
  };
}
