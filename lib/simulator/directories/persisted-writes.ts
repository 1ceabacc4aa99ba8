import type { DirectoryItem, DirectoryItemFields } from '../../spec';
import type { SeedDirectory } from '../seed';

/**
 * What `directories.json` holds: the items written through the API, per directory, in the
 * order first written. Version 1 held every item (the seed's and the written ones); it is
 * read as the writes it amounts to, against the seed.
 */

/** An item's written fields, or null: deleted. */
export type WrittenFields = DirectoryItemFields | null;

/** One directory's writes by item id (a Map: ids come from a file). */
export type DirectoryWrites = Map<string, WrittenFields>;

type PersistedWrite = { id: string; fields: DirectoryItemFields } | { id: string; deleted: true };

export interface PersistedState {
  version: 2;
  directories: { id: string; writes: PersistedWrite[] }[];
}

/** Version 1: the whole directories. */
interface PersistedStateV1 {
  version: 1;
  directories: SeedDirectory[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fieldsOf(value: unknown): DirectoryItemFields {
  if (!isRecord(value) || !Object.values(value).every((v) => typeof v === 'string')) {
    throw new Error('an item has fields that are not strings');
  }
  return value as DirectoryItemFields;
}

function sameFields(a: DirectoryItemFields, b: DirectoryItemFields): boolean {
  const keys = Object.keys(a);
  const other = b as Record<string, string>;
  return (
    keys.length === Object.keys(b).length && keys.every((k) => (a as Record<string, string>)[k] === other[k])
  );
}

/** The writes a version-1 state amounts to: seeded items deleted or changed, items added. */
function fromVersion1(state: PersistedStateV1, seed: readonly SeedDirectory[]): Map<string, DirectoryWrites> {
  const out = new Map<string, DirectoryWrites>();
  for (const entry of state.directories) {
    if (!isRecord(entry) || !isRecord(entry.directory) || !Array.isArray(entry.items)) {
      throw new Error('a directory has no items');
    }
    const id = String(entry.directory.id);
    const seeded = new Map(seed.find((d) => d.directory.id === id)?.items.map((i) => [i.id, i]) ?? []);
    const writes: DirectoryWrites = new Map();
    const kept = new Set<string>();
    for (const raw of entry.items as unknown[]) {
      if (!isRecord(raw) || typeof raw.id !== 'string') throw new Error('an item has no id');
      const item: DirectoryItem = { id: raw.id, fields: fieldsOf(raw.fields) };
      kept.add(item.id);
      const original = seeded.get(item.id);
      if (original === undefined || !sameFields(original.fields, item.fields))
        writes.set(item.id, item.fields);
    }
    for (const itemId of seeded.keys()) if (!kept.has(itemId)) writes.set(itemId, null);
    out.set(id, writes);
  }
  return out;
}

/** The writes of a parsed `directories.json` (either version); throws naming what is wrong. */
export function parseState(value: unknown, seed: readonly SeedDirectory[]): Map<string, DirectoryWrites> {
  if (!isRecord(value) || !Array.isArray(value.directories)) throw new Error('no directories list');
  if (value.version === 1) return fromVersion1(value as unknown as PersistedStateV1, seed);
  if (value.version !== 2) throw new Error(`unknown version ${String(value.version)}`);
  const out = new Map<string, DirectoryWrites>();
  for (const entry of value.directories as unknown[]) {
    if (!isRecord(entry) || typeof entry.id !== 'string' || !Array.isArray(entry.writes)) {
      throw new Error('a directory has no id or writes');
    }
    const writes: DirectoryWrites = new Map();
    for (const write of entry.writes as unknown[]) {
      if (!isRecord(write) || typeof write.id !== 'string') throw new Error('a write has no item id');
      writes.set(write.id, write.deleted === true ? null : fieldsOf(write.fields));
    }
    out.set(entry.id, writes);
  }
  return out;
}
