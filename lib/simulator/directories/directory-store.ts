import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Directory, DirectoryItem, DirectoryItemFields } from '../../spec';
import { SIM_ERROR_CODES, SimulatorError } from '../errors';
import type { SeedDirectory } from '../seed';

/** Raised when the persisted state cannot be read. */
export class DirectoryStoreError extends SimulatorError {
  override readonly name = 'DirectoryStoreError';

  constructor(message: string, options?: ErrorOptions) {
    super(SIM_ERROR_CODES.directoryStoreUnreadable, message, options);
  }
}

const STATE_FILE = 'directories.json';

interface PersistedState {
  version: 1;
  directories: SeedDirectory[];
}

/**
 * Directories and their items, in memory; with a data directory, every change is
 * written to `directories.json` atomically (temporary file + rename) and read back at start.
 */
export class DirectoryStore {
  readonly #directories: SeedDirectory[];
  readonly #dataDir: string | undefined;
  #writes: Promise<void> = Promise.resolve();

  private constructor(directories: SeedDirectory[], dataDir: string | undefined) {
    this.#directories = directories;
    this.#dataDir = dataDir;
  }

  /** Loads the persisted state from `dataDir` when present, else starts from the seed. */
  static async open(seed: SeedDirectory[], dataDir?: string): Promise<DirectoryStore> {
    const fresh = structuredClone(seed);
    if (!dataDir) return new DirectoryStore(fresh, undefined);
    await mkdir(dataDir, { recursive: true });
    let text: string | undefined;
    try {
      text = await readFile(join(dataDir, STATE_FILE), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new DirectoryStoreError(`cannot read ${STATE_FILE} in the data directory`, { cause: error });
      }
    }
    if (text === undefined) {
      const store = new DirectoryStore(fresh, dataDir);
      await store.#persist();
      return store;
    }
    try {
      const state = JSON.parse(text) as PersistedState;
      if (state.version !== 1 || !Array.isArray(state.directories)) throw new Error('unexpected shape');
      return new DirectoryStore(state.directories, dataDir);
    } catch (error) {
      throw new DirectoryStoreError(`${STATE_FILE} in the data directory is not valid`, { cause: error });
    }
  }

  directories(): Directory[] {
    return this.#directories.map((d) => d.directory);
  }

  directory(id: string): Directory | undefined {
    return this.#find(id)?.directory;
  }

  /** Items of a directory (undefined when the directory does not exist). */
  items(directoryId: string): DirectoryItem[] | undefined {
    return this.#find(directoryId)?.items;
  }

  async create(directoryId: string, fields: DirectoryItemFields): Promise<DirectoryItem | undefined> {
    const entry = this.#find(directoryId);
    if (!entry) return undefined;
    const item = { id: randomUUID(), fields };
    entry.items.push(item);
    await this.#persist();
    return item;
  }

  async replace(
    directoryId: string,
    itemId: string,
    fields: DirectoryItemFields,
  ): Promise<DirectoryItem | undefined> {
    const item = this.#find(directoryId)?.items.find((i) => i.id === itemId);
    if (!item) return undefined;
    item.fields = fields;
    await this.#persist();
    return item;
  }

  async delete(directoryId: string, itemId: string): Promise<DirectoryItem | undefined> {
    const entry = this.#find(directoryId);
    const index = entry?.items.findIndex((i) => i.id === itemId) ?? -1;
    if (!entry || index < 0) return undefined;
    const [item] = entry.items.splice(index, 1);
    await this.#persist();
    return item;
  }

  #find(id: string): SeedDirectory | undefined {
    const wanted = id.toLowerCase();
    return this.#directories.find((d) => d.directory.id === wanted);
  }

  /** Serialises writes so renames land in order; each write is whole or absent. */
  #persist(): Promise<void> {
    const dir = this.#dataDir;
    if (!dir) return Promise.resolve();
    const text = JSON.stringify({ version: 1, directories: this.#directories } satisfies PersistedState);
    const next = this.#writes.then(async () => {
      const target = join(dir, STATE_FILE);
      const temp = `${target}.${process.pid}.${randomUUID()}.tmp`;
      await writeFile(temp, text, 'utf8');
      await rename(temp, target);
    });
    this.#writes = next.catch(() => {});
    return next;
  }
}
