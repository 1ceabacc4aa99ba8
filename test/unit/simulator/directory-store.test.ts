import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DirectoryStore, DirectoryStoreError } from '../../../lib/simulator/directories/directory-store';
import { tenantTimeline } from '../../../lib/simulator/hosted-tenants';
import { createSeed } from '../../../lib/simulator/seed';
import type { DirectoryItem } from '../../../lib/spec/types';

const SEED = 11;
const DAY = Date.UTC(2026, 2, 30) / 86_400_000;
const data = createSeed(SEED);
const timeline = tenantTimeline(data, { seed: SEED, index: 0, living: true });
const contacts = data.directories[0]?.directory.id as string;

/** A generated item of DAY that the timeline deletes later, and the first day it is gone. */
function itemDeletedLater(): { item: DirectoryItem; goneOn: number } {
  const today = timeline.itemsOn(contacts, DAY)?.slice(8) ?? [];
  for (let day = DAY + 1; day < DAY + 120; day++) {
    const ids = new Set(timeline.itemsOn(contacts, day)?.map((i) => i.id));
    const gone = today.find((i) => !ids.has(i.id));
    if (gone) return { item: gone, goneOn: day };
  }
  throw new Error('no item deleted within 120 days');
}

describe('DirectoryStore', () => {
  let dataDir: string;
  let day: number;
  const open = (readOnly = false) => DirectoryStore.open({ timeline, today: () => day, dataDir, readOnly });

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'sim-store-'));
    day = DAY;
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps a replaced item with its written fields on the days after the timeline deletes it', async () => {
    // Prepare
    const store = await open();
    const { item, goneOn } = itemDeletedLater();
    const fields = { ...item.fields, jobTitle: 'Written by the API' };
    // Act
    await store.replace(contacts, item.id, fields);
    day = goneOn + 10;
    // Assess
    expect(store.items(contacts)?.find((i) => i.id === item.id)).toEqual({ id: item.id, fields });
  });

  it('keeps a deleted item deleted on the days the timeline still has it', async () => {
    // Prepare
    const store = await open();
    const item = store.items(contacts)?.[20] as DirectoryItem;
    // Act
    await store.delete(contacts, item.id);
    day = DAY + 1;
    // Assess
    expect(timeline.itemsOn(contacts, day)?.some((i) => i.id === item.id)).toBe(true);
    expect(store.items(contacts)?.some((i) => i.id === item.id)).toBe(false);
  });

  it('lists created items after the seeded ones, on every day, and reads them back after a restart', async () => {
    // Prepare
    const first = await open();
    const created = await first.create(contacts, { fullName: 'Created Through The API' });
    // Act
    day = DAY + 3;
    const second = await open();
    // Assess
    expect(second.items(contacts)?.at(-1)).toEqual(created);
    expect(second.items(contacts)).toHaveLength((timeline.itemsOn(contacts, day)?.length ?? 0) + 1);
    const state = JSON.parse(await readFile(join(dataDir, 'directories.json'), 'utf8'));
    expect(state.version).toBe(2);
  });

  it('reads a version 1 state as the writes it amounts to against the seed', async () => {
    // Prepare: the seed's contacts with the first deleted, the second changed, one added.
    const [, second, ...rest] = data.directories[0]?.items ?? [];
    const changed = { id: second?.id as string, fields: { fullName: 'Changed' } };
    const added = { id: '0f000000-0000-4000-8000-000000000001', fields: { fullName: 'Added' } };
    const v1 = {
      version: 1,
      directories: [
        { directory: data.directories[0]?.directory, items: [changed, ...rest, added] },
        data.directories[1],
      ],
    };
    await writeFile(join(dataDir, 'directories.json'), JSON.stringify(v1));
    // Act
    const store = await open(true);
    // Assess
    const items = store.items(contacts) ?? [];
    expect(items.some((i) => i.id === data.directories[0]?.items[0]?.id)).toBe(false);
    expect(items[0]).toEqual(changed);
    expect(items.at(-1)).toEqual(added);
    expect(items.slice(1, 7)).toEqual(rest);
    expect(JSON.parse(await readFile(join(dataDir, 'directories.json'), 'utf8')).version).toBe(1);
  });

  it('writes nothing when read-only and the data directory has no state', async () => {
    // Act
    await open(true);
    // Assess
    expect(await readdir(dataDir)).toEqual([]);
  });

  it.each([
    ['an unknown version', { version: 3, directories: [] }],
    ['a write without an item id', { version: 2, directories: [{ id: contacts, writes: [{ fields: {} }] }] }],
    [
      'fields that are not strings',
      { version: 2, directories: [{ id: contacts, writes: [{ id: 'x', fields: { a: 1 } }] }] },
    ],
  ])('fails with DirectoryStoreError when the state has %s', async (_case, state) => {
    // Prepare
    await writeFile(join(dataDir, 'directories.json'), JSON.stringify(state));
    // Act / Assess
    await expect(open()).rejects.toBeInstanceOf(DirectoryStoreError);
  });
});
