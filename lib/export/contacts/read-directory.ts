import type { CallOptions, DirectoryClient } from '../../api';
import type { Directory, DirectoryItem } from '../../spec';
import { DirectoryListingIncompleteError, DirectoryReadError } from './errors';

/** What the read needs of the client: endpoints 5 and 6. */
export type DirectoryReader = Pick<DirectoryClient, 'getDirectory' | 'searchItems'>;

export interface WholeDirectoryOptions {
  /** Timeout, retries and signal of every request (the client's own defaults otherwise). */
  call?: CallOptions;
  /**
   * Whether an answer of `count` items may have been cut at a cap. Default `looksCapped`: a
   * round number. A deployment that knows the service's cap passes `(n) => n >= cap`.
   */
  isCapped?: (count: number) => boolean;
  /**
   * Longest filter a split tries, in characters. Default 12: a substring every item shares
   * (a company's e-mail domain, a number range) stays capped for as long as it is shared.
   */
  maxFilterLength?: number;
  /** Requests at most, the first ones included. Default 5,000. */
  maxRequests?: number;
  /** Searches of a split in flight at once. Default 4. */
  concurrency?: number;
}

/** A directory read whole, and how. */
export interface WholeDirectory {
  readonly directory: Directory;
  /** Every item, each once (by id), ordered by id. */
  readonly items: DirectoryItem[];
  readonly requests: number;
  /** The first answer looked capped (or empty), so the search was split. */
  readonly split: boolean;
}

/**
 * A count an answer would have if the service cut it at a page size: 100, 250, 500, 1000, any
 * multiple of 50 from 100 on, or a power of two from 64 on. A false alarm costs a split, never
 * data; a cap that is no round number needs the deployment's `isCapped`.
 */
export function looksCapped(count: number): boolean {
  if (count < 64) return false;
  return count % 50 === 0 || (count & (count - 1)) === 0;
}

/**
 * Characters a split searches for, besides those the first answer's values hold: digits
 * (every E.164 phone, every GUID), letters (names, GUIDs' hex) and the punctuation of
 * e-mails and numbers. No whitespace: the service trims a filter, so ` ` would list all.
 */
const BASE_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz+@.-_';
/** Distinct characters taken from the answers' values at most: a bound on the requests. */
const MAX_ALPHABET = 128;

/**
 * The client sends a phone-like search text of 3 digits or more as its digits alone
 * (lib/api searchTextFor: `447.` is searched as `447`): such a filter with punctuation would
 * repeat a search already made, so a split does not grow into it.
 */
const PHONE_LIKE = /^\+?[\d\s().-]+$/;
function sentAsDigits(filter: string): boolean {
  return PHONE_LIKE.test(filter) && !/^\+?\d*$/.test(filter) && (filter.match(/\d/g) ?? []).length >= 3;
}

const DEFAULTS = { maxFilterLength: 12, maxRequests: 5_000, concurrency: 4 };

/**
 * Reads every item of a directory, or throws: never a partial listing, since the versioning
 * takes an item missing from it for a deleted one.
 *
 * The spec documents no paging or cap for the item search (endpoint 6), whose filter is plain
 * CONTAINS text (404 when nothing matches, which the client makes `[]`). So:
 * 1. the directory is read (endpoint 5): a 404 is an error, not an empty directory;
 * 2. the search with an empty filter lists all; if its answer looks capped (`isCapped`), or
 *    is empty (a service that reads an empty filter as "match nothing" must not empty the
 *    table), the search is split: one search per character of an alphabet (BASE_ALPHABET plus
 *    the characters of the values seen), and each answer that still looks capped is split
 *    again by the filter grown one character at either end (`ab` -> `abc`, `cab`: every item
 *    containing `ab` in a value longer than `ab` contains one of them), up to
 *    `maxFilterLength` characters; still capped beyond is DirectoryListingIncompleteError;
 * 3. the listing is the union of all answers, deduplicated by id. It must cover every item a
 *    capped answer showed: an item seen only in capped answers means the split misses items
 *    like it (a value of characters outside the alphabet), and the read is refused;
 * 4. the directory is read again at the end: gone by then is an error.
 * Every request has the client's timeout and retries (`call`); any failure, a timeout or a
 * truncated body (the client's errors) is a DirectoryReadError with it as the cause. An item
 * met twice keeps the content of the answer read last (the directory changed during the read;
 * the next sync sees the rest).
 */
export async function readWholeDirectory(
  client: DirectoryReader,
  directoryId: string,
  options: WholeDirectoryOptions = {},
): Promise<WholeDirectory> {
  const isCapped = options.isCapped ?? looksCapped;
  const maxLength = options.maxFilterLength ?? DEFAULTS.maxFilterLength;
  const maxRequests = options.maxRequests ?? DEFAULTS.maxRequests;
  const concurrency = Math.max(1, options.concurrency ?? DEFAULTS.concurrency);
  const call = options.call ?? {};
  let requests = 0;
  const request = async <T>(what: string, send: () => Promise<T>): Promise<T> => {
    if (requests >= maxRequests) {
      throw new DirectoryListingIncompleteError(
        directoryId,
        `the split search needs more than ${maxRequests} requests (maxRequests); nothing is read`,
      );
    }
    requests++;
    try {
      return await send();
    } catch (error) {
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      throw new DirectoryReadError(directoryId, `${what} failed (${reason}); nothing is read`, {
        cause: error,
      });
    }
  };
  const search = (filter: string) =>
    request(`the search ${JSON.stringify(filter)}`, () => client.searchItems(directoryId, filter, call));
  const readDirectory = (when: string) =>
    request(`reading the directory ${when}`, () => client.getDirectory(directoryId, call));

  const directory = await readDirectory('before its items');
  const items = new Map<string, DirectoryItem>();
  /** Ids seen in capped answers: each must be in an uncapped one too. */
  const shownCapped = new Set<string>();
  const covered = new Set<string>();
  const take = (answer: readonly DirectoryItem[], capped: boolean) => {
    for (const item of answer) {
      if (typeof item?.id !== 'string') {
        throw new DirectoryReadError(directoryId, 'an answer holds an item without an id; nothing is read');
      }
      items.set(item.id, item);
      (capped ? shownCapped : covered).add(item.id);
    }
  };

  const first = await search('');
  const split = first.length === 0 || isCapped(first.length);
  take(first, split);
  if (split) {
    const alphabet = alphabetOf(first);
    const asked = new Set<string>(['', ...alphabet]);
    // Breadth first, one filter length at a time: a level's searches run `concurrency` at
    // once, and the capped ones make the next level.
    for (let level = alphabet; level.length > 0; ) {
      const next: string[] = [];
      await eachLimited(level, concurrency, async (filter) => {
        const answer = await search(filter);
        const capped = isCapped(answer.length);
        take(answer, capped);
        if (!capped) return;
        if (filter.length >= maxLength) {
          throw new DirectoryListingIncompleteError(
            directoryId,
            `the search ${JSON.stringify(filter)} still answers ${answer.length} items, which looks capped, at ${maxLength} characters (maxFilterLength); nothing is read`,
          );
        }
        for (const c of alphabet) {
          for (const grown of [filter + c, c + filter]) {
            if (asked.has(grown) || sentAsDigits(grown)) continue;
            asked.add(grown);
            next.push(grown);
          }
        }
      });
      level = next;
    }
    const missed = [...shownCapped].filter((id) => !covered.has(id));
    if (missed.length > 0) {
      throw new DirectoryListingIncompleteError(
        directoryId,
        `${missed.length} item(s) seen only in capped answers (first ${missed[0]}): the split search does not reach every item; nothing is read`,
      );
    }
  }
  await readDirectory('after its items');
  const listed = [...items.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { directory, items: listed, requests, split };
}

/**
 * Runs `work` on every value, `limit` at a time; waits for all that started, then throws the
 * first failure (in time): no request is left running when the read returns or throws.
 */
async function eachLimited<T>(values: readonly T[], limit: number, work: (value: T) => Promise<void>) {
  let next = 0;
  let first: { error: unknown } | undefined;
  const worker = async () => {
    while (next < values.length && first === undefined) {
      const value = values[next++] as T;
      try {
        await work(value);
      } catch (error) {
        first ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, values.length) }, worker));
  if (first !== undefined) throw first.error;
}

/** BASE_ALPHABET and the other non-space characters of the answer's values, lower-cased. */
function alphabetOf(answer: readonly DirectoryItem[]): string[] {
  const chars = new Set<string>(BASE_ALPHABET);
  for (const item of answer) {
    for (const value of Object.values(item.fields ?? {})) {
      if (typeof value !== 'string') continue;
      for (const ch of value.toLowerCase()) {
        if (chars.size >= MAX_ALPHABET) return [...chars];
        if (!/\s/u.test(ch)) chars.add(ch);
      }
    }
  }
  return [...chars];
}
