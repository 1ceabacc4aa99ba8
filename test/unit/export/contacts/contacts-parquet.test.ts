import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  contactPhoneRows,
  contactPhonesColumns,
  contactsColumns,
  encodeContactsParquet,
  versionDirectory,
} from '../../../../lib/export/contacts';
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
        from_ms: T1.getTime(),
      },
    ]);
  });
});
