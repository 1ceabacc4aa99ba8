import { spawnSync } from 'node:child_process';
import { expect } from 'vitest';
import type { ObjectBody, ObjectStore } from '../../../lib/stores';

export type Mutation = 'put' | 'copy' | 'deleteMany';

/**
 * A machine-local store that "dies" at the n-th mutation matching `at`: from that call on,
 * every put, copy and delete hangs for good (nothing more is written), as after a kill -9.
 * `dead` resolves once that call has been reached and the mutations already under way have
 * finished: the store then holds exactly what the dead process left.
 */
export class DyingStore implements ObjectStore {
  readonly machineLocal = true;
  readonly #inner: ObjectStore;
  readonly #at: (operation: Mutation, key: string, body?: ObjectBody) => boolean;
  #remaining: number;
  #inFlight = 0;
  #died = false;
  #onDead: (() => void) | undefined;
  readonly dead: Promise<void>;

  /** `at` sees every mutation until the store dies (a put's body too): it may record them. */
  constructor(
    inner: ObjectStore,
    nth: number,
    at: (operation: Mutation, key: string, body?: ObjectBody) => boolean,
  ) {
    this.#inner = inner;
    this.#remaining = nth;
    this.#at = at;
    this.dead = new Promise((resolve) => {
      this.#onDead = resolve;
    });
  }

  async #mutate<T>(operation: Mutation, key: string, run: () => Promise<T>, body?: ObjectBody): Promise<T> {
    if (!this.#died && this.#at(operation, key, body) && --this.#remaining === 0) this.#died = true;
    if (this.#died) {
      if (this.#inFlight === 0) this.#onDead?.();
      return new Promise<T>(() => {});
    }
    this.#inFlight++;
    try {
      return await run();
    } finally {
      this.#inFlight--;
      if (this.#died && this.#inFlight === 0) this.#onDead?.();
    }
  }

  get rootUri() {
    return this.#inner.rootUri;
  }
  put(key: string, body: ObjectBody) {
    return this.#mutate('put', key, () => this.#inner.put(key, body), body);
  }
  putIfAbsent(key: string, body: ObjectBody) {
    return this.#mutate('put', key, () => this.#inner.putIfAbsent(key, body), body);
  }
  putFile(key: string, file: string) {
    return this.#mutate('put', key, () => this.#inner.putFile(key, file));
  }
  putFileIfAbsent(key: string, file: string) {
    return this.#mutate('put', key, () => this.#inner.putFileIfAbsent(key, file));
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
  deleteMany(keys: readonly string[]) {
    return this.#mutate('deleteMany', keys[0] ?? '', () => this.#inner.deleteMany(keys));
  }
  copy(from: string, to: string) {
    return this.#mutate('copy', to, () => this.#inner.copy(from, to));
  }
}

/** Waits until `store` has died under `work`; fails should `work` end (or fail) first. */
export async function diesBeforeItEnds(store: DyingStore, work: Promise<unknown>): Promise<void> {
  const ended = work.then(
    () => 'ended',
    (error: unknown) => `failed: ${String(error)}`,
  );
  const outcome = await Promise.race([store.dead.then(() => 'died'), ended]);
  expect(outcome).toBe('died');
}

/** A pid no process has any more (a child that has exited). */
export function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  return child.pid as number;
}
