import type { LeaseStore } from './lease-store';
import { describeProcess, type ProcessIdentity, processGone } from './process-identity';

/** Who holds a lease and until when, as far as the store knows. */
export interface LeaseHolder {
  key: string;
  /** The caller's owner string (an execution's or a token source's id). */
  owner: string;
  /** Expiry, ms since the epoch. */
  expiresAt: number;
  /** The process that took it, when the store records it (the local store does). */
  process?: ProcessIdentity;
  /** The file holding it, for a local store. */
  file?: string;
}

/** A lease store that can say who holds a lease (the local one). */
interface LeaseHolderLookup {
  holder(key: string): Promise<LeaseHolder | undefined>;
}

/**
 * What to say about a busy lease: `held by pid 12 on host-a (owner 3f2…) until
 * 2026-11-20T10:00:00.000Z (file ...)`, or undefined when the store cannot tell (S3) or
 * nobody holds it any more. Never throws: it only adds to another error's message.
 */
export async function describeLeaseHolder(store: LeaseStore, key: string): Promise<string | undefined> {
  const lookup = (store as Partial<LeaseHolderLookup>).holder;
  if (typeof lookup !== 'function') return undefined;
  try {
    const held = await lookup.call(store, key);
    return held === undefined ? undefined : formatLeaseHolder(held);
  } catch {
    return undefined;
  }
}

/** `held by pid 12 on host-a (owner o-1) until <ISO time> (file <path>; ...)`. */
function formatLeaseHolder(held: LeaseHolder): string {
  const by = held.process === undefined ? '' : `${describeProcess(held.process)} `;
  const until = new Date(held.expiresAt).toISOString();
  let text = `held by ${by}(owner ${held.owner || 'unknown'}) until ${until}`;
  if (held.file !== undefined) {
    const gone = held.process !== undefined && processGone(held.process);
    text += gone
      ? ` (file ${held.file}; that process has ended: the next attempt takes it over)`
      : ` (file ${held.file}; if that process is gone, delete the file)`;
  }
  return text;
}
