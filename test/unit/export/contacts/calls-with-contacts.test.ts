import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { callsWithContactsSql } from '../../../../lib/export/contacts';

const FACTS = {
  gb: ['GB', '44', '00', '0'],
  us: ['US', '1', '011', '1'],
  au: ['AU', '61', '0011', '0'],
} as const;

type Tenant = keyof typeof FACTS;

interface Version {
  tenant: Tenant;
  item: string;
  name: string;
  phones: string[];
  from: string;
  to?: string;
  deleted?: boolean;
}

interface Call {
  tenant: Tenant;
  id: string;
  cli: string | null;
  user?: string;
  start: string;
}

const q = (v: string | null | undefined) => (v === null || v === undefined ? 'NULL' : `'${v}'`);
const ts = (v: string | undefined) => (v === undefined ? 'NULL' : `TIMESTAMPTZ '${v}'`);

/** The three tables as the lake has them (the columns the view reads), from the cases. */
function tablesSql(versions: readonly Version[], calls: readonly Call[], tenanted: boolean): string[] {
  const tenantColumn = tenanted ? 'tenant VARCHAR, ' : '';
  const tenantValue = (t: Tenant) => (tenanted ? `${q(t)}, ` : '');
  const statements = [
    `CREATE TABLE calls (${tenantColumn}conn_id VARCHAR, cli VARCHAR, user_num VARCHAR, start_utc TIMESTAMPTZ)`,
    `CREATE TABLE contacts (${tenantColumn}directory_id VARCHAR, directory_name VARCHAR, item_id VARCHAR, crm_id VARCHAR,
      full_name VARCHAR, company_name VARCHAR, valid_from TIMESTAMPTZ, valid_to TIMESTAMPTZ, is_deleted BOOLEAN)`,
    `CREATE TABLE contact_phones (${tenantColumn}directory_id VARCHAR, item_id VARCHAR, valid_from TIMESTAMPTZ,
      phone_field VARCHAR, phone_e164 VARCHAR, dial_country VARCHAR, calling_code VARCHAR, idd_prefix VARCHAR, trunk_prefix VARCHAR)`,
  ];
  for (const c of calls) {
    statements.push(
      `INSERT INTO calls VALUES (${tenantValue(c.tenant)}${q(c.id)}, ${q(c.cli)}, ${q(c.user ?? '2001')}, ${ts(c.start)})`,
    );
  }
  for (const v of versions) {
    const dir = v.item.startsWith('x') ? 'd2' : 'd1';
    statements.push(
      `INSERT INTO contacts VALUES (${tenantValue(v.tenant)}'${dir}', 'Customers ${dir}', ${q(v.item)}, 'crm-${v.item}',
        ${q(v.name)}, 'Co', ${ts(v.from)}, ${ts(v.to)}, ${v.deleted === true})`,
    );
    const [country, code, idd, trunk] = FACTS[v.tenant];
    v.phones.forEach((phone, i) => {
      statements.push(
        `INSERT INTO contact_phones VALUES (${tenantValue(v.tenant)}'${dir}', ${q(v.item)}, ${ts(v.from)}, 'phone${i + 1}',
          ${q(phone)}, '${country}', '${code}', '${idd}', '${trunk}')`,
      );
    });
  }
  return statements;
}

async function viewRows(
  versions: readonly Version[],
  calls: readonly Call[],
  tenanted = true,
): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const connection = await instance.connect();
  try {
    for (const statement of tablesSql(versions, calls, tenanted)) await connection.run(statement);
    await connection.run(callsWithContactsSql({ dialect: 'duckdb', tenanted }));
    const reader = await connection.runAndReadAll(
      `SELECT conn_id, external_number_e164, match_quality, other_candidates, contact_item_id,
        contact_full_name, contact_phone_field, contact_directory_id, contact_crm_id, matched_before_history
       FROM calls_with_contacts ORDER BY conn_id`,
    );
    return reader.getRowObjectsJS() as Record<string, unknown>[];
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

const JAN = '2026-01-10 09:00:00+00';
const VERSIONS: Version[] = [
  // One contact with its number in two fields: one candidate.
  {
    tenant: 'gb',
    item: 'a',
    name: 'Ann',
    phones: ['+442079460001', '+442079460001'],
    from: '2026-01-01 00:00:00+00',
  },
  { tenant: 'gb', item: 'b', name: 'Brendan', phones: ['+353209130456'], from: '2026-01-01 00:00:00+00' },
  { tenant: 'us', item: 'c', name: 'Carl', phones: ['+442079460002'], from: '2026-01-01 00:00:00+00' },
  { tenant: 'us', item: 'd', name: 'Dora', phones: ['+12025550142'], from: '2026-01-01 00:00:00+00' },
  { tenant: 'au', item: 'e', name: 'Eve', phones: ['+442079460003'], from: '2026-01-01 00:00:00+00' },
  // A number of two contacts (the second in another directory).
  { tenant: 'gb', item: 'f', name: 'Fay', phones: ['+442079460009'], from: '2026-01-01 00:00:00+00' },
  { tenant: 'gb', item: 'x-g', name: 'Gus', phones: ['+442079460009'], from: '2026-01-01 00:00:00+00' },
  // A version closed before a later call.
  {
    tenant: 'gb',
    item: 'h',
    name: 'Hal old',
    phones: ['+442079460010'],
    from: '2026-01-01 00:00:00+00',
    to: '2026-02-01 00:00:00+00',
  },
  { tenant: 'gb', item: 'h', name: 'Hal new', phones: ['+442079460010'], from: '2026-02-01 00:00:00+00' },
  // Deleted from February on (a phone row on the deletion too, which must not match).
  {
    tenant: 'gb',
    item: 'i',
    name: 'Ida',
    phones: ['+442079460011'],
    from: '2026-01-01 00:00:00+00',
    to: '2026-02-01 00:00:00+00',
  },
  {
    tenant: 'gb',
    item: 'i',
    name: 'Ida',
    phones: ['+442079460011'],
    from: '2026-02-01 00:00:00+00',
    deleted: true,
  },
  // The same number as us's Carl, in another tenant.
  { tenant: 'gb', item: 'j', name: 'Jo', phones: ['+442079460002'], from: '2026-01-01 00:00:00+00' },
];
const CALLS: Call[] = [
  { tenant: 'gb', id: '01-e164', cli: '+442079460001', start: JAN },
  { tenant: 'gb', id: '02-national', cli: '020 7946 0001', start: JAN },
  { tenant: 'gb', id: '03-idd-uk', cli: '00 353 20 913 0456', start: JAN },
  { tenant: 'us', id: '04-idd-us', cli: '011 44 20 7946 0002', start: JAN },
  { tenant: 'us', id: '05-nanp-trunk', cli: '1 202 555 0142', start: JAN },
  { tenant: 'us', id: '06-nanp-national', cli: '(202) 555-0142', start: JAN },
  { tenant: 'au', id: '07-idd-au', cli: '0011 44 20 7946 0003', start: JAN },
  { tenant: 'gb', id: '08-two-contacts', cli: '02079460009', start: JAN },
  { tenant: 'gb', id: '09-older-version', cli: '+442079460010', start: JAN },
  { tenant: 'gb', id: '10-newer-version', cli: '+442079460010', start: '2026-03-01 09:00:00+00' },
  { tenant: 'gb', id: '11-deleted', cli: '+442079460011', start: '2026-03-01 09:00:00+00' },
  { tenant: 'gb', id: '12-before-deletion', cli: '+442079460011', start: JAN },
  { tenant: 'gb', id: '13-internal', cli: '2001', user: '2001', start: JAN },
  { tenant: 'gb', id: '14-same-number-gb', cli: '020 7946 0002', start: JAN },
  { tenant: 'gb', id: '15-no-cli', cli: null, start: JAN },
  { tenant: 'gb', id: '16-stranger', cli: '020 7946 0999', start: JAN },
  // The same number at the same start twice: both calls stay, both matched.
  { tenant: 'gb', id: '17-duplicate-a', cli: '+442079460001', start: JAN },
  { tenant: 'gb', id: '17-duplicate-b', cli: '+442079460001', start: JAN },
  // Before the contact's first version: the first version covers the time before it.
  { tenant: 'gb', id: '18-before-contact', cli: '+442079460001', start: '2025-12-01 09:00:00+00' },
  // Before Hal's first version: that one (Hal old), not the current.
  { tenant: 'gb', id: '19-before-history', cli: '+442079460010', start: '2025-12-01 09:00:00+00' },
];

describe('callsWithContactsSql in DuckDB', () => {
  it('keeps every call once and gives each the contact valid at its start', async () => {
    // Act
    const rows = await viewRows(VERSIONS, CALLS);
    // Assess
    const got = Object.fromEntries(
      rows.map((r) => [
        r.conn_id,
        [
          r.external_number_e164,
          r.match_quality,
          Number(r.other_candidates),
          r.contact_item_id,
          r.contact_full_name,
        ],
      ]),
    );
    expect(rows.map((r) => r.conn_id)).toEqual(CALLS.map((c) => c.id).sort());
    expect(got).toEqual({
      '01-e164': ['+442079460001', 'e164', 0, 'a', 'Ann'],
      '02-national': ['+442079460001', 'normalised', 0, 'a', 'Ann'],
      '03-idd-uk': ['+353209130456', 'normalised', 0, 'b', 'Brendan'],
      '04-idd-us': ['+442079460002', 'normalised', 0, 'c', 'Carl'],
      '05-nanp-trunk': ['+12025550142', 'normalised', 0, 'd', 'Dora'],
      '06-nanp-national': ['+12025550142', 'normalised', 0, 'd', 'Dora'],
      '07-idd-au': ['+442079460003', 'normalised', 0, 'e', 'Eve'],
      '08-two-contacts': ['+442079460009', 'normalised', 1, 'f', 'Fay'],
      '09-older-version': ['+442079460010', 'e164', 0, 'h', 'Hal old'],
      '10-newer-version': ['+442079460010', 'e164', 0, 'h', 'Hal new'],
      '11-deleted': ['+442079460011', 'none', 0, null, null],
      '12-before-deletion': ['+442079460011', 'e164', 0, 'i', 'Ida'],
      '13-internal': [null, 'internal', 0, null, null],
      '14-same-number-gb': ['+442079460002', 'normalised', 0, 'j', 'Jo'],
      '15-no-cli': [null, 'none', 0, null, null],
      '16-stranger': ['+442079460999', 'none', 0, null, null],
      '17-duplicate-a': ['+442079460001', 'e164', 0, 'a', 'Ann'],
      '17-duplicate-b': ['+442079460001', 'e164', 0, 'a', 'Ann'],
      '18-before-contact': ['+442079460001', 'e164', 0, 'a', 'Ann'],
      '19-before-history': ['+442079460010', 'e164', 0, 'h', 'Hal old'],
    });
    const before = rows.filter((r) => r.matched_before_history === true).map((r) => r.conn_id);
    expect(before).toEqual(['18-before-contact', '19-before-history']);
  });

  it('names the first phone field holding the number and the contact columns', async () => {
    // Act
    const rows = await viewRows(VERSIONS, CALLS);
    // Assess
    const first = rows.find((r) => r.conn_id === '01-e164');
    const two = rows.find((r) => r.conn_id === '08-two-contacts');
    expect(first).toMatchObject({
      contact_phone_field: 'phone1',
      contact_directory_id: 'd1',
      contact_crm_id: 'crm-a',
    });
    expect(two).toMatchObject({ contact_directory_id: 'd1', contact_item_id: 'f' });
  });

  it('reads a single-tenant lake (no tenant column) with its one set of dialling facts', async () => {
    // Arrange
    const versions = VERSIONS.filter((v) => v.tenant === 'gb');
    const calls = CALLS.filter((c) => c.tenant === 'gb');
    // Act
    const rows = await viewRows(versions, calls, false);
    // Assess
    expect(rows).toHaveLength(calls.length);
    expect(rows.find((r) => r.conn_id === '02-national')).toMatchObject({ contact_item_id: 'a' });
    expect(rows.find((r) => r.conn_id === '14-same-number-gb')).toMatchObject({ contact_item_id: 'j' });
  });

  it('keeps every call, unmatched, when the contact tables are empty', async () => {
    // Act
    const rows = await viewRows([], CALLS);
    // Assess
    expect(rows).toHaveLength(CALLS.length);
    expect(new Set(rows.map((r) => r.match_quality))).toEqual(new Set(['none', 'internal']));
  });

  it('reads an omitted field as NULL', async () => {
    // Arrange
    const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
    const connection = await instance.connect();
    try {
      for (const s of tablesSql(VERSIONS, CALLS, true)) await connection.run(s);
      await connection.run('ALTER TABLE contacts DROP COLUMN full_name');
      // Act
      await connection.run(
        callsWithContactsSql({ dialect: 'duckdb', tenanted: true, omitFields: ['fullName'] }),
      );
      const reader = await connection.runAndReadAll(
        `SELECT contact_item_id, contact_full_name FROM calls_with_contacts WHERE conn_id = '01-e164'`,
      );
      // Assess
      expect(reader.getRowObjectsJS()).toEqual([{ contact_item_id: 'a', contact_full_name: null }]);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });
});

describe('callsWithContactsSql for Athena', () => {
  const sql = callsWithContactsSql({ dialect: 'athena', tenanted: true, database: 'report_export' });

  it('replaces the view in the Glue database, over its tables', () => {
    // Assess
    expect(sql.startsWith('CREATE OR REPLACE VIEW "report_export"."calls_with_contacts" AS')).toBe(true);
    for (const t of ['calls', 'contacts', 'contact_phones']) expect(sql).toContain(`"report_export"."${t}"`);
    expect(sql).not.toMatch(/\bFROM (calls|contacts|contact_phones)\b/);
  });

  it("uses Trino's functions only: regexp_replace of every match, no DuckDB syntax", () => {
    // Assess
    expect(sql).toContain("regexp_replace(c.cli, '[^0-9]')");
    expect(sql).not.toContain("'g'");
    expect(sql).not.toMatch(/::|\bEXCLUDE\b|\bQUALIFY\b|\bILIKE\b|list_|string_split/);
    expect(sql).toMatch(/row_number\(\) OVER \(PARTITION BY tenant ORDER BY/);
  });

  it('joins on the tenant only in a multi-tenant lake', () => {
    // Act
    const single = callsWithContactsSql({ dialect: 'athena', tenanted: false });
    // Assess
    expect(single).not.toMatch(/\btenant\b/);
    expect(sql).toContain('p.tenant = k.tenant');
  });
});
