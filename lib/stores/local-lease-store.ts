import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { LeaseHolder } from './lease-holder';
import {
  checkLeaseKey,
  LEASE_STORE_ERROR_CODES,
  type Lease,
  type LeaseStore,
  LeaseStoreError,
  parseLeaseRecord,
} from './lease-store';
import {
  currentProcess,
  describeProcess,
  type ProcessIdentity,
  parseProcessIdentity,
  processGone,
} from './process-identity';

const TAKEOVER_LOCK_MS = 10_000;

/** A lease taken over from a holder process that has ended before the lease expired. */
export interface RecoveredLease extends LeaseHolder {
  /** The new owner. */
  by: string;
}

interface LocalLeaseStoreOptions {
  now?: () => number;
  /**
   * Told when a lease whose holder process has ended (same machine) is taken over before it
   * expired. Default: a process warning (`REPORT_EXPORT_LEASE_RECOVERED`) on stderr.
   */
  onRecovered?: (lease: RecoveredLease) => void;
}

/**
 * Leases as files in a local directory. Taking a free lease is atomic (the record, written
 * to a temporary file, is hard-linked to the lease's name, which fails when it exists), so
 * two processes never both succeed and nobody reads a half-written record; taking over one
 * happens under a short takeover lock (another exclusive create) and only if the file still
 * holds the record seen.
 *
 * Each record names its holder process (host, pid, start time; the `owner` string is the
 * caller's and is kept as given). A lease is taken over when it has expired, or at once when
 * its holder ran on this machine and has ended (a crash, a `kill -9`): its pid is gone or now
 * names another process. A holder on another host, or alive, is waited for until expiry.
 */
export class LocalLeaseStore implements LeaseStore {
  readonly root: string;
  readonly #now: () => number;
  readonly #onRecovered: (lease: RecoveredLease) => void;

  constructor(root: string, options: LocalLeaseStoreOptions = {}) {
    this.root = path.resolve(root);
    this.#now = options.now ?? Date.now;
    this.#onRecovered = options.onRecovered ?? warnRecovered;
  }

  async acquire(key: string, options: { ttlMs: number; owner: string }): Promise<Lease | undefined> {
    checkLeaseKey(key);
    const file = this.#file(key);
    try {
      await fs.mkdir(path.dirname(file), { recursive: true });
      let recovered: LeaseHolder | undefined;
      for (let attempt = 0; attempt < 2; attempt++) {
        const record = JSON.stringify({
          owner: options.owner,
          expiresAt: this.#now() + options.ttlMs,
          ...currentProcess(),
        });
        if (await createExclusive(file, record)) {
          if (recovered !== undefined) this.#onRecovered({ ...recovered, by: options.owner });
          return this.#lease(key, file, options.owner);
        }
        const text = await fs.readFile(file, 'utf8').catch(() => '');
        const held = readRecord(key, file, text);
        if (held.expiresAt > this.#now()) {
          if (held.process === undefined || !processGone(held.process)) return undefined;
          recovered = held;
        }
        // Expired, or its holder is gone. Taking it over is read-check-remove, so contenders
        // first take a short takeover lock (an exclusive create): without it, one could
        // remove the fresh lease another contender has just written over the same stale one.
        if (!(await this.#removeIfStill(file, text))) return undefined;
      }
      return undefined;
    } catch (cause) {
      throw new LeaseStoreError(LEASE_STORE_ERROR_CODES.failed, `Could not take lease ${key}`, {
        key,
        cause,
      });
    }
  }

  /**
   * Who holds `key` now and until when (undefined when nobody does, or the lease has
   * expired): what a message about a busy lease should say.
   */
  async holder(key: string): Promise<LeaseHolder | undefined> {
    checkLeaseKey(key);
    const file = this.#file(key);
    const text = await fs.readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined) return undefined;
    const held = readRecord(key, file, text);
    return held.expiresAt > this.#now() ? held : undefined;
  }

  #file(key: string): string {
    return path.join(this.root, `${key}.lease`);
  }

  /** Removes the lease file if it still holds `seen`; false when another contender is at it. */
  async #removeIfStill(file: string, seen: string): Promise<boolean> {
    const lock = `${file}.takeover`;
    try {
      await fs.writeFile(lock, '', { flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // A contender that crashed mid-takeover leaves its lock: older than 10 s is stale. Its
      // age from the file's mtime on the wall clock, never from its text: a lock just created
      // is empty for a moment, and reading that as "since 0" broke live locks (two holders,
      // a fresh lease deleted under its holder: the race test caught it under load).
      const stat = await fs.stat(lock).catch(() => undefined);
      if (stat !== undefined && Date.now() - stat.mtimeMs > TAKEOVER_LOCK_MS)
        await fs.rm(lock, { force: true });
      return false;
    }
    try {
      // A free lease is created without this lock: when the file is gone there is nothing to
      // remove, and removing "whatever is there" now would delete a lease just created.
      const now = await fs.readFile(file, 'utf8').catch(() => undefined);
      if (now === undefined) return true;
      // Empty: being written by a contender without hard links; not the record seen either way.
      if (now === '' || now !== seen) return false;
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

/**
 * Creates `file` holding `text`, or returns false when it exists. The record is written
 * beside it first and hard-linked into place, so the file never exists half-written (an
 * exclusive create then a write leaves a moment where a reader sees it empty, takes that
 * for a crashed holder's torn record and removes a live lease). Where hard links are not
 * supported, an exclusive create.
 */
async function createExclusive(file: string, text: string): Promise<boolean> {
  const temp = `${file}.${randomUUID()}.tmp`;
  await fs.writeFile(temp, text, { flag: 'wx', mode: 0o600 });
  try {
    await fs.link(temp, file);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw error;
  } finally {
    await fs.rm(temp, { force: true });
  }
  try {
    await fs.writeFile(file, text, { flag: 'wx', mode: 0o600 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** A stored record with its holder process (absent in records of older versions). */
function readRecord(key: string, file: string, text: string): LeaseHolder {
  const { owner, expiresAt } = parseLeaseRecord(text);
  let holder: ProcessIdentity | undefined;
  try {
    holder = parseProcessIdentity(JSON.parse(text));
  } catch {
    holder = undefined;
  }
  return { key, file, owner, expiresAt, ...(holder === undefined ? {} : { process: holder }) };
}

function warnRecovered(lease: RecoveredLease): void {
  process.emitWarning(
    `lease ${lease.key} (${lease.file}) was held until ${new Date(lease.expiresAt).toISOString()} by ${lease.process ? describeProcess(lease.process) : 'a process'}, which has ended: taken over`,
    { code: 'REPORT_EXPORT_LEASE_RECOVERED' },
  );
}
