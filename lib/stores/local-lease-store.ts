import { randomUUID } from 'node:crypto';
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

/**
 * Leases as files in a local directory. Taking a free lease is an exclusive create
 * (`O_EXCL`), so two processes never both succeed; taking over an expired one first
 * renames the stale file away, which only one contender can do.
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
        // Expired: one contender renames it away, the others get ENOENT and lose.
        const stale = `${file}.stale-${randomUUID()}`;
        try {
          await fs.rename(file, stale);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
          throw error;
        }
        await fs.rm(stale, { force: true });
      }
      return undefined;
    } catch (cause) {
      throw new LeaseStoreError(LEASE_STORE_ERROR_CODES.failed, `Could not take lease ${key}`, {
        key,
        cause,
      });
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
