import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DirectoryClient } from '../../../lib/api';
import type { LocalWorkflowResult } from '../../../lib/local/run-workflow';
import { directoryItemsOn } from '../../../lib/simulator/directory-ground-truth';
import { DIRECTORY_FIELD_NAMES, type DirectoryItem } from '../../../lib/spec';
import { listAll } from '../../../lib/stores';
import type { RunRecord } from '../../../lib/workflow/run-record';
import { connect } from '../../integration/api/sim-fixture';
import { startHarness, type WorkflowHarness } from './harness';
import { runRecordAt } from './lake';

/**
 * Issue 29's acceptance on the whole path: the synthesized state machine's contacts branch
 * (SyncDirectories in each tenant's session, Commit as the committer) on the local engine,
 * the lake on S3 (fauxqs), three tenants of the local service, read back with icebird.
 * The ground truth is the service's seeded directories (directoryItemsOn), computed apart
 * from the service, with this test's own writes applied by the test.
 */

let h: WorkflowHarness;
let writer: DirectoryClient;
beforeAll(async () => {
  h = await startHarness({ tenancy: 'multi', simulator: { rowsPerDay: 20 } });
  // The first tenant's own login (a grant of its own: the deployment's secret is untouched).
  writer = (await connect(h.deployment.sim)).api.directories;
}, 60_000);
afterAll(async () => {
  await h?.close();
});

const snake = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A current version's item as the service would serve it: its id and every field of the spec. */
function itemOfRow(row: Record<string, unknown>): Record<string, unknown> {
  return {
    id: row.item_id,
    ...Object.fromEntries(DIRECTORY_FIELD_NAMES.map((f) => [f, row[snake(f)] ?? null])),
  };
}
function itemOf(item: DirectoryItem): Record<string, unknown> {
  const fields = item.fields as Record<string, unknown>;
  return { id: item.id, ...Object.fromEntries(DIRECTORY_FIELD_NAMES.map((f) => [f, fields[f] ?? null])) };
}
const byId = (a: Record<string, unknown>, b: Record<string, unknown>) =>
  String(a.id) < String(b.id) ? -1 : 1;

/** The seeded items of a tenant's directories, by directory id. */
async function seeded(tenant: number): Promise<Map<string, DirectoryItem[]>> {
  const states = await directoryItemsOn({ tenant, date: '2026-11-18' });
  return new Map(states.map((s) => [s.directory.id, s.items]));
}

async function runContacts(tenant: string, extra: Record<string, unknown> = {}) {
  const result: LocalWorkflowResult = await h.deployment.run({ tenant, contacts: 'only', ...extra });
  const key = result.summaries.at(-1)?.runRecordKey as string;
  return { result, record: (await runRecordAt(h.s3.store(), key)) as RunRecord };
}

/** Every object key under a table's folder (`metadata` or `data`). */
async function tableKeys(table: string, folder: 'metadata' | 'data'): Promise<string[]> {
  return (await listAll(h.s3.store(), `lake/tables/${table}/${folder}/`)).map((o) => o.key).sort();
}

/** The current versions of a tenant's directory, as items, read with icebird. */
async function currentItems(tenant: string, directoryId: string): Promise<Record<string, unknown>[]> {
  const rows = await h.tableRows('contacts');
  return rows
    .filter((r) => r.tenant === tenant && r.directory_id === directoryId && r.is_current === true)
    .filter((r) => r.is_deleted === false)
    .map(itemOfRow)
    .sort(byId);
}

describe('contact directories in the lake, three tenants (local engine, S3 on fauxqs, icebird)', () => {
  it("syncs each tenant's directories: the current versions are the service's items, every field", async () => {
    // Act
    const tenants = h.deployment.tenants;
    const runs = await Promise.all(tenants.map((t) => runContacts(t.id)));

    // Assess
    for (const [i, t] of tenants.entries()) {
      const { result, record } = runs[i] as Awaited<ReturnType<typeof runContacts>>;
      expect(result.status, t.id).toBe('SUCCEEDED');
      expect(record.contacts.status, t.id).toBe('synced');
      const truth = await seeded(i);
      expect(record.contacts.directories.map((d) => d.directoryId).sort(), t.id).toEqual(
        [...truth.keys()].sort(),
      );
      for (const [directoryId, items] of truth) {
        expect(await currentItems(t.id, directoryId), `${t.id} ${directoryId}`).toEqual(
          items.map(itemOf).sort(byId),
        );
      }
    }
    // Every version is current and open after a first sync; each phone of each is a row of contact_phones.
    const rows = await h.tableRows('contacts');
    expect(rows.every((r) => r.is_current === true && r.valid_to === null && r.is_deleted === false)).toBe(
      true,
    );
    const phones = await h.tableRows('contact_phones');
    const phoneFields = rows.reduce(
      (n, r) =>
        n + ['phone1', 'phone2', 'phone3', 'phone4'].filter((f) => r[f] !== null && r[f] !== '').length,
      0,
    );
    expect(phones.length).toBe(phoneFields);
    expect(
      phones.every((p) => typeof p.phone_e164 === 'string' && String(p.phone_e164).startsWith('+')),
    ).toBe(true);
  }, 240_000);

  it('after a replace and a delete, closes the changed version, writes one deletion, and a rerun writes nothing', async () => {
    // Prepare: the first tenant's first directory, two items of it.
    const tenant = h.deployment.tenants[0]?.id as string;
    const [directoryId] = h.deployment.sim.directoryIds as [string];
    const items = (await seeded(0)).get(directoryId) as DirectoryItem[];
    expect(items.length).toBeGreaterThanOrEqual(3);
    const [changed, gone] = [...items].sort((a, b) => (a.id < b.id ? -1 : 1)) as [
      DirectoryItem,
      DirectoryItem,
    ];
    const newFields = { ...changed.fields, jobTitle: 'Head of Returns (e2e)' };
    await writer.replaceItem(directoryId, changed.id, newFields);
    await writer.deleteItem(directoryId, gone.id);
    const before = await h.tableRows('contacts');

    // Act
    const second = await runContacts(tenant);

    // Assess: the run record's counts, and the table's versions read back.
    expect(second.result.status).toBe('SUCCEEDED');
    const dir = second.record.contacts.directories.find((d) => d.directoryId === directoryId);
    expect(dir).toMatchObject({ status: 'committed', newVersions: 1, deletions: 1, closedVersions: 2 });
    const after = await h.tableRows('contacts');
    const versions = (id: string) =>
      after
        .filter((r) => r.tenant === tenant && r.directory_id === directoryId && r.item_id === id)
        .sort((a, b) => Number(a.valid_from) - Number(b.valid_from));
    const [oldChanged, newChanged] = versions(changed.id);
    expect(versions(changed.id)).toHaveLength(2);
    expect(oldChanged).toMatchObject({
      is_current: false,
      is_deleted: false,
      job_title: changed.fields.jobTitle ?? null,
    });
    expect(oldChanged?.valid_to).toEqual(newChanged?.valid_from);
    expect(newChanged).toMatchObject({
      is_current: true,
      is_deleted: false,
      valid_to: null,
      job_title: newFields.jobTitle,
    });
    const [oldGone, deletion] = versions(gone.id);
    expect(versions(gone.id)).toHaveLength(2);
    expect(oldGone).toMatchObject({ is_current: false, is_deleted: false });
    expect(deletion).toMatchObject({
      is_current: true,
      is_deleted: true,
      valid_to: null,
      full_name: gone.fields.fullName ?? null,
    });
    // Exactly two rows more (the new version and the deletion), every other row as it was.
    expect(after.length).toBe(before.length + 2);
    const expected = items
      .filter((i) => i.id !== gone.id)
      .map((i) => (i.id === changed.id ? itemOf({ ...i, fields: newFields }) : itemOf(i)))
      .sort(byId);
    expect(await currentItems(tenant, directoryId)).toEqual(expected);

    // Act: a third run with no change.
    const metadata = await tableKeys('contacts', 'metadata');
    const data = [...(await tableKeys('contacts', 'data')), ...(await tableKeys('contact_phones', 'data'))];
    const third = await runContacts(tenant);

    // Assess: no version, no snapshot, no data file.
    expect(third.record.contacts.status).toBe('unchanged');
    expect(third.record.contacts.directories.every((d) => d.newVersions === 0 && d.deletions === 0)).toBe(
      true,
    );
    expect(await tableKeys('contacts', 'metadata')).toEqual(metadata);
    expect([
      ...(await tableKeys('contacts', 'data')),
      ...(await tableKeys('contact_phones', 'data')),
    ]).toEqual(data);
  }, 240_000);

  it('changes nothing in the tables when a directory read fails half way, and names the error', async () => {
    // Prepare: a change the failed run must not publish, and the service failing every item
    // search (route `items`): the listing and each directory's header are read, then its
    // search fails, through every retry of the client and of the task.
    const tenant = h.deployment.tenants[0]?.id as string;
    const [directoryId] = h.deployment.sim.directoryIds as [string];
    const [item] = (await writer.searchItems(directoryId, '')).sort((a, b) => (a.id < b.id ? -1 : 1));
    await writer.deleteItem(directoryId, (item as DirectoryItem).id);
    const metadata = [
      ...(await tableKeys('contacts', 'metadata')),
      ...(await tableKeys('contact_phones', 'metadata')),
    ];
    const rows = await h.tableRows('contacts');
    const faults = h.deployment.sim.faults;
    faults.inject({ route: 'items', kind: 'status', status: 500, times: 500 });

    // Act
    let failed: Awaited<ReturnType<typeof runContacts>>;
    try {
      failed = await runContacts(tenant);
    } finally {
      faults.clear();
    }

    // Assess: nothing committed, the error named in the run record.
    expect(failed.record.contacts.status).toBe('failed');
    expect(failed.record.contacts.error?.name).toBe('DirectoryReadError');
    expect(failed.record.contacts.directories.every((d) => d.status === 'failed')).toBe(true);
    expect([
      ...(await tableKeys('contacts', 'metadata')),
      ...(await tableKeys('contact_phones', 'metadata')),
    ]).toEqual(metadata);
    expect(await h.tableRows('contacts')).toEqual(rows);
  }, 240_000);
});
