import { createReadStream } from 'node:fs';
import { listAll, type ObjectBody, type ObjectStore, readObject } from '../../../lib/stores';

/** Every object of a store, key -> base64 bytes. */
export async function snapshot(store: ObjectStore): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const o of await listAll(store, ''))
    out.set(o.key, Buffer.from(await readObject(store, o.key)).toString('base64'));
  return out;
}

export type Operation = 'put' | 'copy' | 'deleteMany';

/**
 * Wraps a store and fails the n-th call of one operation (once). With `lose`, the n-th
 * put is acknowledged with the size of its body but not stored (a lost write).
 */
export class FailingStore implements ObjectStore {
  readonly #inner: ObjectStore;
  readonly #operation: Operation;
  readonly #lose: boolean;
  #remaining: number;

  constructor(inner: ObjectStore, operation: Operation, nth: number, options: { lose?: boolean } = {}) {
    this.#inner = inner;
    this.#operation = operation;
    this.#remaining = nth;
    this.#lose = options.lose ?? false;
  }

  #tick(operation: Operation): void {
    if (operation === this.#operation && --this.#remaining === 0)
      throw new Error(`injected ${operation} failure`);
  }

  get rootUri() {
    return this.#inner.rootUri;
  }
  async put(key: string, body: ObjectBody) {
    return this.#put(key, body, () => this.#inner.put(key, body));
  }
  async putIfAbsent(key: string, body: ObjectBody) {
    return this.#put(key, body, () => this.#inner.putIfAbsent(key, body));
  }
  async #put<T>(key: string, body: ObjectBody, write: () => Promise<T>) {
    try {
      this.#tick('put');
    } catch (error) {
      if (!this.#lose) throw error;
      let size = 0;
      for await (const chunk of (typeof body === 'string'
        ? [Buffer.from(body)]
        : body) as AsyncIterable<Uint8Array>)
        size += chunk.length;
      return { key, size };
    }
    return write();
  }
  async putFile(key: string, file: string) {
    return this.put(key, createReadStream(file));
  }
  async putFileIfAbsent(key: string, file: string) {
    return this.putIfAbsent(key, createReadStream(file));
  }
  get(key: string) {
    return this.#inner.get(key);
  }
  head(key: string) {
    return this.#inner.head(key);
  }
  list(prefix: string) {
    return this.#inner.list(prefix);
  }
  async deleteMany(keys: readonly string[]) {
    this.#tick('deleteMany');
    return this.#inner.deleteMany(keys);
  }
  async copy(from: string, to: string) {
    this.#tick('copy');
    return this.#inner.copy(from, to);
  }
}
