import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExportConfigError, glueColumns, parquetSchema } from '../../../../lib/export';
import {
  CONTACT_FIELD_ORDER,
  type ContactRow,
  contactPhonesColumns,
  contactsColumns,
  personalColumns,
} from '../../../../lib/export/contacts';
import { DIRECTORY_FIELD_NAMES } from '../../../../lib/spec';

describe('contactsColumns', () => {
  it('has a column per field of the spec, in snake_case, between the keys and the history', () => {
    // Act
    const names = contactsColumns().columns.map((c) => c.name);
    // Assess
    expect([...CONTACT_FIELD_ORDER].sort()).toEqual([...DIRECTORY_FIELD_NAMES].sort());
    expect(names).toEqual([
      'tenant',
      'directory_id',
      'directory_name',
      'item_id',
      'crm_id',
      'title',
      'full_name',
      'company_name',
      'job_title',
      'phone1',
      'phone2',
      'phone3',
      'phone4',
      'email',
      ...Array.from({ length: 10 }, (_, i) => `field${i + 1}`),
      'avatar',
      'extra',
      'valid_from',
      'valid_to',
      'is_current',
      'is_deleted',
      'content_hash',
    ]);
  });

  it('names the service field in each field column doc', () => {
    // Act
    const columns = contactsColumns().columns;
    // Assess
    expect(columns.find((c) => c.name === 'full_name')?.description).toContain('item field fullName.');
    expect(columns.find((c) => c.name === 'crm_id')?.description).toContain('item field crmId.');
  });

  it('flags the columns that hold personal data', () => {
    // Act
    const contacts = personalColumns(contactsColumns());
    const phones = personalColumns(contactPhonesColumns());
    // Assess
    expect(contacts).toEqual([
      'title',
      'full_name',
      'job_title',
      'phone1',
      'phone2',
      'phone3',
      'phone4',
      'email',
      ...Array.from({ length: 10 }, (_, i) => `field${i + 1}`),
      'avatar',
      'extra',
    ]);
    expect(phones).toEqual(['phone_as_sent', 'phone_e164']);
    // The guide's list of them is this one.
    const guide = readFileSync(path.join(__dirname, '../../../../docs/contacts-in-the-lake.md'), 'utf8');
    const section = guide.slice(guide.indexOf('## Personal data'), guide.indexOf('## Locally'));
    const listed = (table: string) =>
      (new RegExp(`^- \\\`${table}\\\`: ([^]*?)(?=\\n- |\\n\\n)`, 'm').exec(section)?.[1] ?? '')
        .replace(/\s+/g, ' ')
        .replace('field1-field10', Array.from({ length: 10 }, (_, i) => `field${i + 1}`).join(', '))
        .split(', ');
    expect(listed('contacts')).toEqual(contacts);
    expect(listed('contact_phones')).toEqual(phones);
  });

  it('leaves the omitted fields out of the schema, the Parquet schema and the Glue columns', () => {
    // Act
    const table = contactsColumns({ omitFields: ['email', 'extra'] });
    // Assess
    expect(table.columns.map((c) => c.name)).not.toContain('email');
    expect(table.columns.map((c) => c.name)).not.toContain('extra');
    expect(parquetSchema(table).map((e) => e.name)).not.toContain('email');
    expect(glueColumns('parquet', table).map((c) => c.Name)).not.toContain('email');
    expect(table.columns).toHaveLength(contactsColumns().columns.length - 2);
  });

  it('refuses an omitted field the spec does not name, naming it', () => {
    // Act
    const attempt = () => contactsColumns({ omitFields: ['e_mail'] });
    // Assess
    expect(attempt).toThrow(ExportConfigError);
    expect(attempt).toThrow(/"e_mail" is not an item field/);
  });

  it('types the history columns as UTC timestamps and booleans', () => {
    // Act
    const glue = glueColumns('parquet', contactsColumns());
    // Assess
    expect(glue.filter((c) => c.Type !== 'string').map((c) => [c.Name, c.Type])).toEqual([
      ['valid_from', 'timestamp'],
      ['valid_to', 'timestamp'],
      ['is_current', 'boolean'],
      ['is_deleted', 'boolean'],
    ]);
  });

  it('reads each column of a row through its definition', () => {
    // Prepare
    const row: ContactRow = {
      tenant: 't',
      directoryId: 'd',
      directoryName: 'n',
      itemId: 'i',
      fields: { fullName: 'Ada', phone2: '+441632960102' },
      extra: null,
      validFrom: 1,
      validTo: null,
      isCurrent: true,
      isDeleted: false,
      contentHash: 'h',
    };
    // Act
    const values = Object.fromEntries(contactsColumns().columns.map((c) => [c.name, c.value(row)]));
    // Assess
    expect(values).toMatchObject({
      tenant: 't',
      item_id: 'i',
      full_name: 'Ada',
      phone2: '+441632960102',
      email: null,
      valid_from: 1,
      valid_to: null,
      is_current: true,
      content_hash: 'h',
    });
  });
});
