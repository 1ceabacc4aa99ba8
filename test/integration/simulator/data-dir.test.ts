import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DirectoryItem, Envelope } from '../../../lib/spec/types';
import { startTestSim } from './sim-harness';

describe('directory persistence with dataDir', () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'sim-data-'));
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps created, replaced and deleted items across a restart when dataDir is set', async () => {
    // Prepare
    const first = await startTestSim({ dataDir });
    const dir = first.sim.directoryIds[1] as string;
    const created = (await (
      await first.api(`/contactdirectories/${dir}/items`, {
        method: 'POST',
        body: { fields: { fullName: 'Persisted' } },
      })
    ).json()) as Envelope<DirectoryItem>;
    const before = (
      (await (await first.api(`/contactdirectories/${dir}/items`)).json()) as Envelope<DirectoryItem[]>
    ).data;
    const removed = before[0] as DirectoryItem;
    await first.api(`/contactdirectories/${dir}/items/${removed.id}`, { method: 'DELETE' });
    await first.close();
    // Act
    const second = await startTestSim({ dataDir });
    const after = (
      (await (await second.api(`/contactdirectories/${dir}/items`)).json()) as Envelope<DirectoryItem[]>
    ).data;
    await second.close();
    // Assess
    expect(after.map((i) => i.id)).toContain(created.data.id);
    expect(after.map((i) => i.id)).not.toContain(removed.id);
    expect(after).toHaveLength(before.length - 1);
    expect(await readdir(dataDir)).toEqual(['directories.json']);
  });

  it('starts from the seed when dataDir is not set', async () => {
    // Prepare
    const first = await startTestSim();
    const dir = first.sim.directoryIds[1] as string;
    await first.api(`/contactdirectories/${dir}/items`, {
      method: 'POST',
      body: { fields: { fullName: 'Transient' } },
    });
    await first.close();
    // Act
    const second = await startTestSim();
    const response = await second.api(`/contactdirectories/${dir}/items?filter=Transient`);
    await second.close();
    // Assess
    expect(response.status).toBe(404);
  });
});
