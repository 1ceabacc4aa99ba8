import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import {
  checkLeaseKey,
  LEASE_STORE_ERROR_CODES,
  type Lease,
  type LeaseStore,
  LeaseStoreError,
  parseLeaseRecord,
} from './lease-store';

const TAKEOVER_LOCK_MS = 10_000;

/**
 * Leases as files in a local directory. Taking a free lease is an exclusive create
 * (`O_EXCL`), so two processes never both succeed; taking over an expired one happens
 * under a short takeover lock (another exclusive create) and only if the file still holds
 * the expired record.
 */
export class LocalLeaseStore implements LeaseStore {
  readonly root: string;
  readonly #now: () => number;

  constructor(root: string, options: { now?: () => number } = {}) {
    this.root = path.resolve(root);
    this.#now = options.now ?? Date.now;
  }

  async acquire(key: string, options: { ttlMs: number; owner: string }): Promise<Lease | undefined> {
    checkLeaseKey(key);
    const file = path.join(this.root, `${key}.lease`);
    try {
      await fs.mkdir(path.dirname(file), { recursive: true });
      for (let attempt = 0; attempt < 2; attempt++) {
        const record = JSON.stringify({ owner: options.owner, expiresAt: this.#now() + options.ttlMs });
        try {
          await fs.writeFile(file, record, { flag: 'wx', mode: 0o600 });
          return this.#lease(key, file, options.owner);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
        const held = parseLeaseRecord(await fs.readFile(file, 'utf8').catch(() => ''));
        if (held.expiresAt > this.#now()) return undefined;
        // Expired. Taking it over is read-check-remove, so contenders first take a short
        // takeover lock (an exclusive create): without it, one could remove the fresh lease
        // another contender has just written over the same expired one.
        if (!(await this.#removeIfStill(file, held))) return undefined;
      }
      return undefined;
    } catch (cause) {
      throw new LeaseStoreError(LEASE_STORE_ERROR_CODES.failed, `Could not take lease ${key}`, {
        key,
        cause,
      });
    }
  }

  /** Removes the lease file if it still holds `seen`; false when another contender is at it. */
  async #removeIfStill(file: string, seen: { owner: string; expiresAt: number }): Promise<boolean> {
    const lock = `${file}.takeover`;
    try {
      await fs.writeFile(lock, String(this.#now()), { flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // A contender that crashed mid-takeover leaves its lock: older than 10 s is stale.
      const since = Number(await fs.readFile(lock, 'utf8').catch(() => '0'));
      if (this.#now() - since > TAKEOVER_LOCK_MS) await fs.rm(lock, { force: true });
      return false;
    }
    try {
      const now = parseLeaseRecord(await fs.readFile(file, 'utf8').catch(() => ''));
      if (now.owner !== seen.owner || now.expiresAt !== seen.expiresAt) return false;
      await fs.rm(file, { force: true });
      return true;
    } finally {
      await fs.rm(lock, { force: true });
    }
  }

  #lease(key: string, file: string, owner: string): Lease {
    let released = false;
    return {
      key,
      owner,
      release: async () => {
        if (released) return;
        released = true;
        // Only our own record is removed: an expired lease may have been taken over.
        const held = parseLeaseRecord(await fs.readFile(file, 'utf8').catch(() => ''));
        if (held.owner === owner) await fs.rm(file, { force: true });
      },
    };
  }
}
