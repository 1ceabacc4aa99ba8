import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetMetadata } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ContactRow,
  contactPhoneRows,
  contactPhonesColumns,
  contactsColumns,
  encodeContactsParquet,
  versionDirectory,
} from '../../../../lib/export/contacts';
import { readContactVersions } from '../../../../lib/export/contacts/contacts-read';
import { LocalDirectoryStore } from '../../../../lib/stores';
import { duckdbQuery, sqlString } from '../../../support/duckdb';

const T1 = new Date('2026-11-01T02:00:00.123Z');
const T2 = new Date('2026-11-02T02:00:00Z');
const DIRECTORY = { id: 'd0000000-0000-4000-8000-000000000001', name: 'Kontakte – Zürich' };
const ITEMS = [
  {
    id: 'i-1',
    fields: {
      crmId: '7d1b2c3e-0000-4000-8000-000000000001',
      title: 'Dr',
      fullName: 'Zoë Ångström',
      companyName: 'Ångström AB',
      jobTitle: 'Physicist',
      email: 'zoe@example.test',
      phone1: '+46701234567',
      phone2: '08 123 456 78',
      field1: 'VIP',
      field10: 'ten',
      avatar: 'https://example.test/a.png',
      nickname: 'Z',
    },
  },
  { id: 'i-2', fields: { fullName: 'Bo' } },
];

const SE_DIALLING = { dial_country: 'SE', calling_code: '46', idd_prefix: '00', trunk_prefix: '0' };

describe('encodeContactsParquet', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'contacts-parquet-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  async function written(name: string, bytes: Uint8Array): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, bytes);
    return path;
  }

  it('writes contacts rows that DuckDB reads back exactly', async () => {
    // Prepare
    const first = versionDirectory({
      tenant: 'acme',
      directory: DIRECTORY,
      current: [],
      items: ITEMS,
      now: T1,
    });
    const { rows } = versionDirectory({
      tenant: 'acme',
      directory: DIRECTORY,
      current: first.rows,
      items: [ITEMS[0]],
      now: T2,
    });
    const table = contactsColumns();
    // Act
    const path = await written('contacts.parquet', encodeContactsParquet(table, rows));
    const read = await duckdbQuery(
      `select *, epoch_ms(valid_from)::double as from_ms, epoch_ms(valid_to)::double as to_ms from read_parquet(${sqlString(path)}) order by item_id, valid_from`,
    );
    // Assess
    expect(read.map((r) => Object.keys(r).slice(0, table.columns.length))).toEqual(
      read.map(() => table.columns.map((c) => c.name)),
    );
    expect(read).toHaveLength(3);
    expect(read[0]).toMatchObject({
      tenant: 'acme',
      directory_id: DIRECTORY.id,
      directory_name: DIRECTORY.name,
      item_id: 'i-1',
      crm_id: '7d1b2c3e-0000-4000-8000-000000000001',
      title: 'Dr',
      full_name: 'Zoë Ångström',
      company_name: 'Ångström AB',
      job_title: 'Physicist',
      email: 'zoe@example.test',
      phone1: '+46701234567',
      phone2: '08 123 456 78',
      phone3: null,
      field1: 'VIP',
      field2: null,
      field10: 'ten',
      avatar: 'https://example.test/a.png',
      extra: '{"fields":{"nickname":"Z"}}',
      from_ms: T1.getTime(),
      to_ms: null,
      is_current: true,
      is_deleted: false,
      content_hash: rows[0]?.contentHash,
    });
    expect(
      read.slice(1).map((r) => [r.item_id, r.from_ms, r.to_ms, r.is_current, r.is_deleted, r.full_name]),
    ).toEqual([
      ['i-2', T1.getTime(), T2.getTime(), false, false, 'Bo'],
      ['i-2', T2.getTime(), null, true, true, 'Bo'],
    ]);
  });

  it('writes a file without the omitted columns', async () => {
    // Prepare
    const table = contactsColumns({ omitFields: ['email'] });
    const { rows } = versionDirectory({
      tenant: 'acme',
      directory: DIRECTORY,
      current: [],
      items: ITEMS,
      now: T1,
    });
    // Act
    const path = await written('omitted.parquet', encodeContactsParquet(table, rows));
    const columns = await duckdbQuery(`describe select * from read_parquet(${sqlString(path)})`);
    // Assess
    expect(columns.map((c) => c.column_name)).toEqual(table.columns.map((c) => c.name));
    expect(columns.map((c) => c.column_name)).not.toContain('email');
  });

  it('writes contact_phones rows that DuckDB reads back exactly', async () => {
    // Prepare
    const { rows } = versionDirectory({
      tenant: 'acme',
      directory: DIRECTORY,
      current: [],
      items: ITEMS,
      now: T1,
    });
    const phones = contactPhoneRows(rows, 'SE');
    // Act
    const path = await written('phones.parquet', encodeContactsParquet(contactPhonesColumns(), phones));
    const read = await duckdbQuery(
      `select * exclude (valid_from), epoch_ms(valid_from)::double as from_ms from read_parquet(${sqlString(path)}) order by phone_field`,
    );
    // Assess
    expect(read).toEqual([
      {
        tenant: 'acme',
        directory_id: DIRECTORY.id,
        item_id: 'i-1',
        phone_field: 'phone1',
        phone_as_sent: '+46701234567',
        phone_e164: '+46701234567',
        match: 'e164',
        is_current: true,
        ...SE_DIALLING,
        from_ms: T1.getTime(),
      },
      {
        tenant: 'acme',
        directory_id: DIRECTORY.id,
        item_id: 'i-1',
        phone_field: 'phone2',
        phone_as_sent: '08 123 456 78',
        phone_e164: '+46812345678',
        match: 'national',
        is_current: true,
        ...SE_DIALLING,
        from_ms: T1.getTime(),
      },
    ]);
  });

  it('writes an Iceberg data file: field ids, micros, the schema JSON, read back by DuckDB', async () => {
    // Prepare
    const { rows } = versionDirectory({
      tenant: 'acme',
      directory: DIRECTORY,
      current: [],
      items: ITEMS,
      now: T1,
    });
    const table = contactsColumns();
    const fieldIds = Object.fromEntries(table.columns.map((c, i) => [c.name, i + 1]));
    // Act
    const bytes = encodeContactsParquet(table, rows, {
      iceberg: { fieldIds, schemaJson: '{"type":"struct"}' },
    });
    const path = await written('iceberg.parquet', bytes);
    const read = await duckdbQuery(
      `select item_id, epoch_ms(valid_from)::double as from_ms, valid_to, is_current from read_parquet(${sqlString(path)}) order by item_id`,
    );
    // Assess
    const metadata = parquetMetadata(new Uint8Array(bytes).buffer);
    expect(metadata.schema.slice(1).map((e) => [e.name, e.field_id])).toEqual(Object.entries(fieldIds));
    expect(metadata.schema.find((e) => e.name === 'valid_from')?.logical_type).toEqual({
      type: 'TIMESTAMP',
      isAdjustedToUTC: true,
      unit: 'MICROS',
    });
    expect(metadata.schema.find((e) => e.name === 'extra')?.logical_type).toEqual({ type: 'STRING' });
    expect(metadata.key_value_metadata).toContainEqual({ key: 'iceberg.schema', value: '{"type":"struct"}' });
    expect(read).toEqual([
      { item_id: 'i-1', from_ms: T1.getTime(), valid_to: null, is_current: true },
      { item_id: 'i-2', from_ms: T1.getTime(), valid_to: null, is_current: true },
    ]);
  });

  it.each([
    ['a plain file', false],
    ['an Iceberg file', true],
  ])('reads %s back to the very versions it was written from', async (_, iceberg) => {
    // Prepare
    const first = versionDirectory({
      tenant: 'acme',
      directory: DIRECTORY,
      current: [],
      items: ITEMS,
      now: T1,
    });
    const { rows } = versionDirectory({
      tenant: 'acme',
      directory: DIRECTORY,
      current: first.rows,
      items: [{ ...ITEMS[0], fields: { ...ITEMS[0]?.fields, field2: '' } }],
      now: T2,
    });
    const table = contactsColumns();
    const fieldIds = Object.fromEntries(table.columns.map((c, i) => [c.name, i + 1]));
    const store = new LocalDirectoryStore(join(dir, 'store'));
    const bytes = encodeContactsParquet(
      table,
      rows,
      iceberg ? { iceberg: { fieldIds, schemaJson: '{}' } } : {},
    );
    await store.put('t/a.parquet', bytes);
    // Act
    const back = await readContactVersions(store, ['t/a.parquet'], {
      tenant: 'acme',
      directoryId: DIRECTORY.id,
    });
    // Assess
    expect(rows.some((r: ContactRow) => r.validTo !== null && r.extra !== null)).toBe(true);
    expect(rows.some((r: ContactRow) => r.fields.field2 === '')).toBe(true);
    expect(back).toEqual(rows);
  });

  it('refuses to read back a file of another directory', async () => {
    // Prepare
    const { rows } = versionDirectory({
      tenant: 'acme',
      directory: DIRECTORY,
      current: [],
      items: ITEMS,
      now: T1,
    });
    const store = new LocalDirectoryStore(join(dir, 'store'));
    await store.put('t/a.parquet', encodeContactsParquet(contactsColumns(), rows));
    // Act
    const attempt = readContactVersions(store, ['t/a.parquet'], { tenant: 'acme', directoryId: 'other' });
    // Assess
    await expect(attempt).rejects.toMatchObject({
      name: 'ContactHistoryError',
      code: 'EXPORT_TABLE_INVALID',
    });
  });

  it("writes a single-tenant lake's files without a tenant column, read back with no tenant", async () => {
    // Prepare
    const { rows } = versionDirectory({
      tenant: undefined,
      directory: DIRECTORY,
      current: [],
      items: ITEMS,
      now: T1,
    });
    const table = contactsColumns({ tenanted: false });
    const store = new LocalDirectoryStore(join(dir, 'store'));
    await store.put('t/a.parquet', encodeContactsParquet(table, rows));
    // Act
    const back = await readContactVersions(store, ['t/a.parquet'], {
      tenant: undefined,
      directoryId: DIRECTORY.id,
    });
    // Assess
    expect(table.columns.map((c) => c.name)).not.toContain('tenant');
    expect(back).toEqual(rows);
  });
});
