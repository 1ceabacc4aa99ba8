import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Directory, DirectoryItem, DirectoryItemFields } from '../../spec';
import { SIM_ERROR_CODES, SimulatorError } from '../errors';
import type { DirectoryTimeline } from './directory-timeline';
import {
  type DirectoryWrites,
  type PersistedState,
  parseState,
  type WrittenFields,
} from './persisted-writes';

/** Raised when the persisted state cannot be read. */
export class DirectoryStoreError extends SimulatorError {
  override readonly name = 'DirectoryStoreError';

  constructor(message: string, options?: ErrorOptions) {
    super(SIM_ERROR_CODES.directoryStoreUnreadable, message, options);
  }
}

const STATE_FILE = 'directories.json';

interface OpenOptions {
  /** The seeded items of each day. */
  timeline: DirectoryTimeline;
  /** The local day (epoch day in the tenant's zone) the items are served for: the clock's. */
  today: () => number;
  /** Persist the writes here (atomic writes) and read them back at open. Default: memory only. */
  dataDir?: string | undefined;
  /** Read the data directory but never write it (ground truth of a test). Default false. */
  readOnly?: boolean;
}

/** The items of a day: the timeline's, each replaced or deleted by a write, then the items written only. */
export function applyWrites(
  seeded: readonly DirectoryItem[],
  writes: DirectoryWrites | undefined,
): DirectoryItem[] {
  if (writes === undefined || writes.size === 0) return [...seeded];
  const items: DirectoryItem[] = [];
  const seen = new Set<string>();
  for (const item of seeded) {
    seen.add(item.id);
    const written = writes.get(item.id);
    if (written === undefined) items.push(item);
    else if (written !== null) items.push({ id: item.id, fields: written });
  }
  for (const [id, fields] of writes) if (fields !== null && !seen.has(id)) items.push({ id, fields });
  return items;
}

/**
 * Directories and their items: the timeline's items of the clock's day, with every write
 * made through the API on top (a write wins on every day: an item written keeps its fields
 * whatever the timeline does with it, an item deleted stays deleted). With a data
 * directory, the writes (never the seeded items: they follow from the seed) are written to
 * `directories.json` atomically (temporary file + rename) and read back at start.
 */
export class DirectoryStore {
  readonly #timeline: DirectoryTimeline;
  readonly #today: () => number;
  readonly #writes: Map<string, DirectoryWrites>;
  readonly #dataDir: string | undefined;
  #persisting: Promise<void> = Promise.resolve();

  private constructor(options: OpenOptions, writes: Map<string, DirectoryWrites>) {
    this.#timeline = options.timeline;
    this.#today = options.today;
    this.#writes = writes;
    this.#dataDir = options.readOnly === true ? undefined : options.dataDir;
  }

  /** Loads the persisted writes from `dataDir` when present, else starts from the seed alone. */
  static async open(options: OpenOptions): Promise<DirectoryStore> {
    const { dataDir, timeline } = options;
    const fresh = new Map(timeline.directories.map((d) => [d.directory.id, new Map() as DirectoryWrites]));
    if (!dataDir) return new DirectoryStore(options, fresh);
    if (options.readOnly !== true) await mkdir(dataDir, { recursive: true });
    let text: string | undefined;
    try {
      text = await readFile(join(dataDir, STATE_FILE), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new DirectoryStoreError(`cannot read ${STATE_FILE} in the data directory`, { cause: error });
      }
    }
    if (text === undefined) {
      const store = new DirectoryStore(options, fresh);
      await store.#persist();
      return store;
    }
    try {
      const writes = parseState(JSON.parse(text), timeline.directories);
      for (const [id, directoryWrites] of writes) if (fresh.has(id)) fresh.set(id, directoryWrites);
      return new DirectoryStore(options, fresh);
    } catch (error) {
      throw new DirectoryStoreError(`${STATE_FILE} in the data directory is not valid`, { cause: error });
    }
  }

  directories(): Directory[] {
    return this.#timeline.directories.map((d) => d.directory);
  }

  directory(id: string): Directory | undefined {
    const wanted = id.toLowerCase();
    return this.#timeline.directories.find((d) => d.directory.id === wanted)?.directory;
  }

  /** Items of a directory today (undefined when the directory does not exist). */
  items(directoryId: string): DirectoryItem[] | undefined {
    const id = directoryId.toLowerCase();
    const seeded = this.#timeline.itemsOn(id, this.#today());
    return seeded === undefined ? undefined : applyWrites(seeded, this.#writes.get(id));
  }

  async create(directoryId: string, fields: DirectoryItemFields): Promise<DirectoryItem | undefined> {
    const writes = this.#writes.get(directoryId.toLowerCase());
    if (!writes) return undefined;
    const item = { id: randomUUID(), fields };
    writes.set(item.id, fields);
    await this.#persist();
    return item;
  }

  async replace(
    directoryId: string,
    itemId: string,
    fields: DirectoryItemFields,
  ): Promise<DirectoryItem | undefined> {
    return this.#write(directoryId, itemId, fields);
  }

  async delete(directoryId: string, itemId: string): Promise<DirectoryItem | undefined> {
    return this.#write(directoryId, itemId, null);
  }

  /** Replaces (fields) or deletes (null) an item there is today; the item as it was, else undefined. */
  async #write(
    directoryId: string,
    itemId: string,
    fields: WrittenFields,
  ): Promise<DirectoryItem | undefined> {
    const id = directoryId.toLowerCase();
    const item = this.items(id)?.find((i) => i.id === itemId);
    const writes = this.#writes.get(id);
    if (!item || !writes) return undefined;
    writes.set(itemId, fields);
    await this.#persist();
    return fields === null ? item : { id: itemId, fields };
  }

  /** Serialises writes so renames land in order; each write is whole or absent. */
  #persist(): Promise<void> {
    const dir = this.#dataDir;
    if (!dir) return Promise.resolve();
    const state: PersistedState = {
      version: 2,
      directories: [...this.#writes].map(([id, writes]) => ({
        id,
        writes: [...writes].map(([itemId, fields]) =>
          fields === null ? { id: itemId, deleted: true as const } : { id: itemId, fields },
        ),
      })),
    };
    const text = JSON.stringify(state);
    const next = this.#persisting.then(async () => {
      const target = join(dir, STATE_FILE);
      const temp = `${target}.${process.pid}.${randomUUID()}.tmp`;
      await writeFile(temp, text, 'utf8');
      await rename(temp, target);
    });
    this.#persisting = next.catch(() => {});
    return next;
  }
}
