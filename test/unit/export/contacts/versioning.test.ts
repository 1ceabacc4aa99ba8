import { describe, expect, it } from 'vitest';
import {
  ContactHistoryError,
  type ContactRow,
  type DirectorySyncInput,
  omittedFields,
  versionDirectory,
} from '../../../../lib/export/contacts';

const TENANT = 'acme';
const DIRECTORY = { id: 'd0000000-0000-4000-8000-000000000001', name: 'Company contacts' };
const T1 = new Date('2026-11-01T02:00:00Z');
const T2 = new Date('2026-11-02T02:00:00Z');
const T3 = new Date('2026-11-03T02:00:00Z');
const T4 = new Date('2026-11-04T02:00:00Z');

const ada = {
  id: 'i-ada',
  fields: { fullName: 'Ada Lovelace', phone1: '+447700900001', email: 'ada@example.test' },
};
const bob = { id: 'i-bob', fields: { fullName: 'Bob Builder', phone1: '+447700900002' } };
const cy = { id: 'i-cy', fields: { fullName: 'Cy Young', companyName: 'Yankees' } };

function sync(
  current: readonly ContactRow[],
  items: readonly unknown[],
  now: Date,
  more: Partial<DirectorySyncInput> = {},
) {
  return versionDirectory({ tenant: TENANT, directory: DIRECTORY, current, items, now, ...more });
}

/** The versions of one item, oldest first, as (valid_from, valid_to, is_current, is_deleted, fullName). */
function historyOf(rows: readonly ContactRow[], itemId: string) {
  return rows
    .filter((r) => r.itemId === itemId)
    .map((r) => [r.validFrom, r.validTo, r.isCurrent, r.isDeleted, r.fields.fullName ?? null]);
}

describe('versionDirectory', () => {
  it('opens one current version per item when the partition is empty', () => {
    // Act
    const { rows, counts, changed } = sync([], [bob, ada], T1);
    // Assess
    expect(rows.map((r) => r.itemId)).toEqual(['i-ada', 'i-bob']);
    expect(rows[0]).toMatchObject({
      tenant: TENANT,
      directoryId: DIRECTORY.id,
      directoryName: DIRECTORY.name,
      fields: ada.fields,
      extra: null,
      validFrom: T1.getTime(),
      validTo: null,
      isCurrent: true,
      isDeleted: false,
    });
    expect(rows[0]?.contentHash).toMatch(/^[0-9a-f]{64}$/);
    expect(counts).toEqual({ items: 2, newVersions: 2, closed: 0, deletions: 0, unchanged: 0 });
    expect(changed).toBe(true);
  });

  it('returns the same rows and no change when the listing is the same, in another order', () => {
    // Prepare
    const first = sync([], [ada, bob], T1);
    const reordered = {
      id: 'i-ada',
      fields: { email: 'ada@example.test', phone1: '+447700900001', fullName: 'Ada Lovelace' },
    };
    // Act
    const second = sync(first.rows, [bob, reordered], T2);
    // Assess
    expect(second.rows).toEqual(first.rows);
    expect(second.changed).toBe(false);
    expect(second.counts).toEqual({ items: 2, newVersions: 0, closed: 0, deletions: 0, unchanged: 2 });
  });

  it('closes the current version and opens one when an item changed', () => {
    // Prepare
    const first = sync([], [ada, bob], T1);
    const renamed = { id: 'i-bob', fields: { fullName: 'Bob the Builder', phone1: '+447700900002' } };
    // Act
    const { rows, counts } = sync(first.rows, [ada, renamed], T2);
    // Assess
    expect(historyOf(rows, 'i-bob')).toEqual([
      [T1.getTime(), T2.getTime(), false, false, 'Bob Builder'],
      [T2.getTime(), null, true, false, 'Bob the Builder'],
    ]);
    expect(historyOf(rows, 'i-ada')).toEqual([[T1.getTime(), null, true, false, 'Ada Lovelace']]);
    expect(counts).toEqual({ items: 2, newVersions: 1, closed: 1, deletions: 0, unchanged: 1 });
  });

  it('writes a deletion version with the last fields when an item is gone, and nothing more while it stays gone', () => {
    // Prepare
    const first = sync([], [ada, bob], T1);
    // Act
    const second = sync(first.rows, [ada], T2);
    const third = sync(second.rows, [ada], T3);
    // Assess
    expect(historyOf(second.rows, 'i-bob')).toEqual([
      [T1.getTime(), T2.getTime(), false, false, 'Bob Builder'],
      [T2.getTime(), null, true, true, 'Bob Builder'],
    ]);
    const [closed, deletion] = second.rows.filter((r) => r.itemId === 'i-bob');
    expect(deletion?.contentHash).toBe(closed?.contentHash);
    expect(second.counts).toEqual({ items: 1, newVersions: 0, closed: 1, deletions: 1, unchanged: 1 });
    expect(third.rows).toEqual(second.rows);
    expect(third.changed).toBe(false);
    expect(third.counts).toEqual({ items: 1, newVersions: 0, closed: 0, deletions: 0, unchanged: 1 });
  });

  it('closes the deletion version and opens a new one when a deleted item comes back', () => {
    // Prepare
    const first = sync([], [ada, bob], T1);
    const gone = sync(first.rows, [ada], T2);
    // Act
    const back = sync(gone.rows, [ada, bob], T3);
    // Assess
    expect(historyOf(back.rows, 'i-bob')).toEqual([
      [T1.getTime(), T2.getTime(), false, false, 'Bob Builder'],
      [T2.getTime(), T3.getTime(), false, true, 'Bob Builder'],
      [T3.getTime(), null, true, false, 'Bob Builder'],
    ]);
    expect(back.counts).toEqual({ items: 2, newVersions: 1, closed: 1, deletions: 0, unchanged: 1 });
  });

  it('keeps one current version per item across replaces, deletes and additions', () => {
    // Prepare
    let rows = sync([], [ada, bob], T1).rows;
    rows = sync(rows, [{ ...ada, fields: { fullName: 'Ada King' } }, cy], T2).rows;
    rows = sync(rows, [bob, cy], T3).rows;
    // Act
    const { rows: last } = sync(rows, [bob, cy], T4);
    // Assess
    const current = last.filter((r) => r.isCurrent);
    expect(current.map((r) => [r.itemId, r.isDeleted])).toEqual([
      ['i-ada', true],
      ['i-bob', false],
      ['i-cy', false],
    ]);
    expect(last).toHaveLength(7);
    for (const r of last) expect(r.validTo === null).toBe(r.isCurrent);
  });

  it('renames the directory on current versions only, opening no version', () => {
    // Prepare
    const first = sync([], [ada, bob], T1);
    const second = sync(first.rows, [ada, { ...bob, fields: { fullName: 'Bob II' } }], T2);
    // Act
    const renamed = sync(second.rows, [ada, { ...bob, fields: { fullName: 'Bob II' } }], T3, {
      directory: { id: DIRECTORY.id, name: 'Customers' },
    });
    // Assess
    expect(renamed.rows.map((r) => [r.itemId, r.isCurrent, r.directoryName])).toEqual([
      ['i-ada', true, 'Customers'],
      ['i-bob', false, 'Company contacts'],
      ['i-bob', true, 'Customers'],
    ]);
    expect(renamed.changed).toBe(true);
    expect(renamed.counts.newVersions).toBe(0);
  });

  it('opens no version when only an omitted field changed', () => {
    // Prepare
    const omit = omittedFields(['email']);
    const first = sync([], [ada], T1, { omit });
    // Act
    const second = sync(first.rows, [{ ...ada, fields: { ...ada.fields, email: 'new@example.test' } }], T2, {
      omit,
    });
    // Assess
    expect(first.rows[0]?.fields).not.toHaveProperty('email');
    expect(second.changed).toBe(false);
  });

  it('versions a change of extra members like a change of fields', () => {
    // Prepare
    const first = sync([], [{ ...cy, fields: { ...cy.fields, nickname: 'Cyclone' } }], T1);
    // Act
    const second = sync(first.rows, [{ ...cy, fields: { ...cy.fields, nickname: 'Denton' } }], T2);
    // Assess
    expect(first.rows[0]?.extra).toBe('{"fields":{"nickname":"Cyclone"}}');
    expect(second.counts).toMatchObject({ newVersions: 1, closed: 1 });
  });

  it.each([
    ['a row of another tenant', [{ tenant: 'other' }]],
    ['a row of another directory', [{ directoryId: 'd-other' }]],
    ['two current versions of one item', [{}, { validFrom: T1.getTime() - 1000 }]],
    ['a version from after the sync', [{ validFrom: T3.getTime() }]],
    ['a current version with a valid_to', [{ validTo: T1.getTime() + 1 }]],
  ])('refuses a partition with %s', (_what, overrides) => {
    // Prepare
    const [base] = sync([], [ada], T1).rows as [ContactRow];
    const current = overrides.map((o) => ({ ...base, ...o }));
    // Act
    const attempt = () => sync(current, [ada], T2);
    // Assess
    expect(attempt).toThrow(ContactHistoryError);
    expect(attempt).toThrow(expect.objectContaining({ code: 'EXPORT_TABLE_INVALID' }));
  });

  it('refuses to close a version at the instant it was opened', () => {
    // Prepare
    const first = sync([], [ada], T1);
    // Act
    const attempt = () => sync(first.rows, [{ ...ada, fields: { fullName: 'Other' } }], T1);
    // Assess
    expect(attempt).toThrow(ContactHistoryError);
  });

  it('refuses a listing that names an item twice', () => {
    // Act
    const attempt = () => sync([], [ada, ada], T1);
    // Assess
    expect(attempt).toThrow(expect.objectContaining({ code: 'EXPORT_ROW_INVALID' }));
  });
});
