import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError, type ServiceClient, ValidationError } from '../../../lib/api';
import { connect, type countingFetch, type RunningSimulator, startTestSimulator } from './sim-fixture';

describe('DirectoryClient against the local service', () => {
  let sim: RunningSimulator;
  let api: ServiceClient;
  let dir: string;
  let counter: ReturnType<typeof countingFetch>;

  beforeAll(async () => {
    sim = await startTestSimulator();
    ({ api, counter } = await connect(sim));
    dir = sim.directoryIds[0] as string;
  });
  afterEach(() => sim.faults.clear());
  afterAll(() => sim.close());

  it('lists every directory and reads one', async () => {
    // Act
    const ids: string[] = [];
    for await (const d of api.directories.listDirectories()) ids.push(d.id);
    const one = await api.directories.getDirectory(dir);
    // Assess
    expect(ids).toEqual(expect.arrayContaining(sim.directoryIds));
    expect(one.id).toBe(dir);
    expect(one.fields.length).toBeGreaterThan(0);
  });

  it('creates, reads, searches, replaces, patches and deletes an item with E.164 phones', async () => {
    // Act
    const created = await api.directories.createItem(dir, {
      fullName: 'Integration Ivy',
      phone1: '07911 123456',
      email: 'ivy@example.test',
    });
    const id = created.item.id;
    const read = await api.directories.getItem(dir, id);
    const byPhone = await api.directories.searchItems(dir, '07911 123456', {
      fields: ['fullName', 'phone1'],
    });
    const byFragment = await api.directories.searchItems(dir, '7911 1234');
    const replaced = await api.directories.replaceItem(dir, id, {
      fullName: 'Integration Ivy II',
      phone1: '+44 7911 654321',
    });
    const patched = await api.directories.patchItem(dir, id, [
      { op: 'replace', path: '/fields/phone1', value: '07911 000111' },
    ]);
    const deleted = await api.directories.deleteItem(dir, id);
    const gone = await api.directories.getItem(dir, id).catch((e: unknown) => e);
    // Assess
    expect(created.item.fields.phone1).toBe('+447911123456');
    expect(created.location).toContain(`/contactdirectories/${dir}/items`);
    expect(read.fields).toMatchObject({ fullName: 'Integration Ivy', phone1: '+447911123456' });
    expect(byPhone.map((i) => i.id)).toEqual([id]);
    expect(byPhone[0]?.fields).toEqual({ fullName: 'Integration Ivy', phone1: '+447911123456' });
    expect(byFragment.map((i) => i.id)).toContain(id);
    expect(replaced.item.fields).toMatchObject({ fullName: 'Integration Ivy II', phone1: '+447911654321' });
    expect(patched.item.fields.phone1).toBe('+447911000111');
    expect(deleted.id).toBe(id);
    expect(gone).toBeInstanceOf(NotFoundError);
  });

  it('creates, reads and deletes an item by crmId', async () => {
    // Prepare
    const crmId = randomUUID();
    // Act
    const created = await api.directories.createItemByCrmId(dir, { fullName: 'Crm Carl', crmId });
    const found = await api.directories.getItemsByCrmId(dir, crmId);
    const deleted = await api.directories.deleteItemByCrmId(dir, crmId);
    const after = await api.directories.getItemsByCrmId(dir, crmId).catch((e: unknown) => e);
    // Assess
    expect(created.item.fields.crmId).toBe(crmId);
    expect(found.map((i) => i.id)).toEqual([created.item.id]);
    expect(deleted.id).toBe(created.item.id);
    expect(after).toBeInstanceOf(NotFoundError);
  });

  it('returns an empty list when a search matches nothing', async () => {
    // Act
    const items = await api.directories.searchItems(dir, 'no-such-contact-zzz');
    // Assess
    expect(items).toEqual([]);
  });

  it('rejects a bad id before any request', async () => {
    // Act
    const error = await api.directories.getItem(dir, 'not-a-guid').catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(ValidationError);
  });

  it('retries reads through 503 bursts and returns the same directory', async () => {
    // Prepare
    sim.faults.inject({ route: 'directories', kind: 'status', status: 503, times: 2 });
    const before = counter.calls();
    // Act
    const one = await api.directories.getDirectory(dir);
    // Assess
    expect(one.id).toBe(dir);
    expect(counter.calls() - before).toBe(3);
  });
  it('deletes only one item when a delete by crmId times out after the service acted', async () => {
    // Prepare: two items share a crmId; the service deletes the oldest per call
    const crmId = randomUUID();
    const first = await api.directories.createItemByCrmId(dir, { fullName: 'Twin One', crmId });
    const second = await api.directories.createItemByCrmId(dir, { fullName: 'Twin Two', crmId });
    sim.faults.inject({ route: 'items', kind: 'latency', ms: 400, times: 1 });
    const before = counter.calls();
    // Act: the first DELETE is served after the client gave up on it
    const error = await api.directories
      .deleteItemByCrmId(dir, crmId, { timeoutMs: 100, maxRetries: 2 })
      .catch((e: unknown) => e);
    const sent = counter.calls() - before;
    let left: string[] = [first.item.id, second.item.id];
    for (let i = 0; i < 100 && left.length === 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      left = (await api.directories.getItemsByCrmId(dir, crmId).catch(() => [])).map((item) => item.id);
    }
    // Assess
    expect(error).toHaveProperty('code', 'API_TIMEOUT');
    expect(sent).toBe(1);
    expect(left).toEqual([second.item.id]);
  });
});
