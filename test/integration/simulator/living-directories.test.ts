import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../lib/simulator/clock';
import { directoryChanges as changes, directoryItemsOn } from '../../../lib/simulator/index';
import type { DirectoryItem, Envelope } from '../../../lib/spec/types';
import { startTestSim, type TestSim } from './sim-harness';

const DAY_MS = 86_400_000;
/** Monday 30 March 2026. */
const FIRST_DAY = Date.UTC(2026, 2, 30) / DAY_MS;

const dateOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
/** Noon in London on an epoch day (the first tenant's zone: a single date either side of UTC). */
const noonOf = (day: number) => day * DAY_MS + 12 * 3600_000;

/** The first tenant's contacts on a day, as the ground truth has them. */
async function truthOf(day: number, dataDir?: string): Promise<DirectoryItem[]> {
  const [contacts] = await directoryItemsOn({
    tenant: 0,
    date: dateOf(day),
    livingDirectories: true,
    ...(dataDir === undefined ? {} : { dataDir }),
  });
  return contacts?.items ?? [];
}

/** The first day from FIRST_DAY whose next day adds, edits and deletes contacts. */
async function dayWithEveryChange(): Promise<number> {
  for (let day = FIRST_DAY; day < FIRST_DAY + 90; day++) {
    const { added, deleted, edited } = changes(await truthOf(day), await truthOf(day + 1));
    if (added.length > 0 && deleted.length > 0 && edited.length > 0) return day;
  }
  throw new Error('no day in 90 with an add, an edit and a delete');
}

async function itemsServed(t: TestSim): Promise<DirectoryItem[]> {
  const dir = t.sim.directoryIds[0] as string;
  const response = await t.api(`/contactdirectories/${dir}/items`);
  expect(response.status).toBe(200);
  return ((await response.json()) as Envelope<DirectoryItem[]>).data;
}

describe('living directories over HTTP', () => {
  let dataDir: string;
  const started: TestSim[] = [];
  const start = async (day: number, withData = false) => {
    const t = await startTestSim({
      livingDirectories: true,
      clock: new ManualClock(noonOf(day)),
      // The token outlives the day the clock is moved by.
      accessTokenTtlSeconds: 7 * 86_400,
      ...(withData ? { dataDir } : {}),
    });
    started.push(t);
    return t;
  };

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'sim-living-'));
  });
  afterEach(async () => {
    for (const t of started.splice(0)) await t.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('serves the adds, edits and deletes of the ground truth when the clock passes a day', async () => {
    // Prepare
    const day = await dayWithEveryChange();
    const t = await start(day);
    // Act
    const before = await itemsServed(t);
    t.clock.advance(DAY_MS);
    const after = await itemsServed(t);
    // Assess
    expect(before).toEqual(await truthOf(day));
    expect(after).toEqual(await truthOf(day + 1));
    const served = changes(before, after);
    expect(served.added.length).toBeGreaterThan(0);
    expect(served.deleted.length).toBeGreaterThan(0);
    expect(served.edited.length).toBeGreaterThan(0);
  });

  it('keeps the API writes of one run in the next, on a later day, as the ground truth with dataDir has them', async () => {
    // Prepare: a replace, a delete and a create on the first day.
    const first = await start(FIRST_DAY, true);
    const dir = first.sim.directoryIds[0] as string;
    const items = await itemsServed(first);
    const replaced = items[30] as DirectoryItem;
    const deleted = items[40] as DirectoryItem;
    const put = await first.api(`/contactdirectories/${dir}/items/${replaced.id}`, {
      method: 'PUT',
      body: { fields: { fullName: 'Replaced Between Runs', phone1: '020 7946 0999' } },
    });
    expect(put.status).toBe(201);
    expect(
      (await first.api(`/contactdirectories/${dir}/items/${deleted.id}`, { method: 'DELETE' })).status,
    ).toBe(200);
    const post = await first.api(`/contactdirectories/${dir}/items`, {
      method: 'POST',
      body: { fields: { fullName: 'Created Between Runs' } },
    });
    const created = ((await post.json()) as Envelope<DirectoryItem>).data;
    await first.close();
    started.splice(0);
    // Act: the next run, a week later.
    const second = await start(FIRST_DAY + 7, true);
    const after = await itemsServed(second);
    // Assess
    expect(after).toEqual(await truthOf(FIRST_DAY + 7, dataDir));
    expect(after.find((i) => i.id === replaced.id)?.fields).toEqual({
      fullName: 'Replaced Between Runs',
      phone1: '+442079460999',
    });
    expect(after.some((i) => i.id === deleted.id)).toBe(false);
    expect(after.at(-1)).toEqual(created);
    expect(await truthOf(FIRST_DAY + 7)).not.toEqual(after);
  });
});
