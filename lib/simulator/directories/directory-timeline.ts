import type { CountryCode } from 'libphonenumber-js';
import type { DirectoryItem } from '../../spec';
import { formatGuid, labelSeed, mixSeed, Prng } from '../prng';
import type { SeedDirectory } from '../seed';
import { type DirectoryKind, draftFields, editFields } from './contact-drafts';

/**
 * The seeded items of a tenant's directories on a local day (epoch day in the tenant's
 * zone), a pure function of the seed and the day: the items of the seed on every day, and,
 * when the directories are living, the generated ones. Each day some generated items are
 * born, some edited, some deleted; item `k` born on day `d` has its id, fields, lifetime and
 * edits from (seed, directory, d, k) alone, so any day is computed without replaying the
 * days before it (a scan of the {@link MAX_LIFETIME_DAYS} before it).
 */

/** How one directory lives: births per day (mean), mean lifetime, and what it holds. */
interface DirectoryLife {
  kind: DirectoryKind;
  birthsPerDay: number;
  meanLifetimeDays: number;
  meanDaysBetweenEdits: number;
}

/** Oldest a generated item gets: it is deleted at this age at the latest. */
export const MAX_LIFETIME_DAYS = 1095;

/**
 * The first directory (people, ~280 items once settled: ~0.8 added, ~0.8 deleted and ~1.5
 * edited a day), the second (desks, ~25 items), any further ones like the second.
 */
const LIVES: readonly DirectoryLife[] = [
  { kind: 'people', birthsPerDay: 0.8, meanLifetimeDays: 365, meanDaysBetweenEdits: 180 },
  { kind: 'desks', birthsPerDay: 0.07, meanLifetimeDays: 500, meanDaysBetweenEdits: 240 },
];

/** Days of items kept per directory (a report window and a sync or two). */
const CACHED_DAYS = 16;

/** Most births a day can have (keeps a scan bounded whatever the draw). */
const MAX_BIRTHS_PER_DAY = 6;

/** A geometric draw: whole days, at least 1, with the given mean. */
function days(rng: Prng, mean: number): number {
  return 1 + Math.floor(-Math.log(1 - rng.next()) * (mean - 1));
}

/** Births on a day: Poisson with the given mean, capped. */
function birthsOn(rng: Prng, mean: number): number {
  const limit = Math.exp(-mean);
  let product = rng.next();
  let count = 0;
  while (product > limit && count < MAX_BIRTHS_PER_DAY) {
    count++;
    product *= rng.next();
  }
  return count;
}

interface TimelineOptions {
  seed: number;
  /** Country of the generated phone numbers. */
  country: CountryCode;
  /** The directories and the items they start with (on every day). */
  directories: readonly SeedDirectory[];
  /** Generate items as days pass (else the seed's items only, on every day). */
  living: boolean;
}

export class DirectoryTimeline {
  readonly #options: TimelineOptions;
  readonly #cache = new Map<string, DirectoryItem[]>();

  constructor(options: TimelineOptions) {
    this.#options = options;
  }

  get directories(): readonly SeedDirectory[] {
    return this.#options.directories;
  }

  /** The items of the directory on a local day (undefined for a directory not hosted); do not mutate. */
  itemsOn(directoryId: string, day: number): readonly DirectoryItem[] | undefined {
    const index = this.#options.directories.findIndex((d) => d.directory.id === directoryId);
    const entry = this.#options.directories[index];
    if (entry === undefined) return undefined;
    if (!this.#options.living) return entry.items;
    const key = `${index}/${day}`;
    let items = this.#cache.get(key);
    if (items === undefined) {
      items = [...entry.items, ...this.#generated(index, entry, day)];
      if (this.#cache.size >= CACHED_DAYS * this.#options.directories.length) {
        this.#cache.delete(this.#cache.keys().next().value as string);
      }
      this.#cache.set(key, items);
    }
    return items;
  }

  /** Generated items alive on `day`, oldest first, each in its version of that day. */
  #generated(index: number, entry: SeedDirectory, day: number): DirectoryItem[] {
    const { seed, country } = this.#options;
    const life = LIVES[Math.min(index, LIVES.length - 1)] as DirectoryLife;
    const allowed = entry.directory.fields;
    const rng = new Prng(0);
    const items: DirectoryItem[] = [];
    for (let born = day - MAX_LIFETIME_DAYS + 1; born <= day; born++) {
      rng.reseed(mixSeed(seed, labelSeed('directory-births'), index, born));
      const count = birthsOn(rng, life.birthsPerDay);
      for (let k = 0; k < count; k++) {
        rng.reseed(mixSeed(seed, labelSeed('directory-item'), index, born, k));
        const id = formatGuid(rng.nextUint32(), rng.nextUint32(), rng.nextUint32(), rng.nextUint32());
        const lifetime = Math.min(MAX_LIFETIME_DAYS, days(rng, life.meanLifetimeDays));
        if (born + lifetime <= day) continue;
        let fields = draftFields(rng, life.kind, country, allowed);
        const edits = new Prng(0);
        let editDay = born;
        for (let e = 0; ; e++) {
          edits.reseed(mixSeed(seed, labelSeed('directory-edit'), index, born, k, e));
          editDay += days(edits, life.meanDaysBetweenEdits);
          if (editDay > day) break;
          fields = editFields(fields, edits, life.kind, country, allowed);
        }
        items.push({ id, fields });
      }
    }
    return items;
  }
}
