import { describe, expect, it } from 'vitest';
import { parseContacts } from '../../../lib/cli/commands/directory/contacts';
import { CSV_FAULT_CODES } from '../../../lib/cli/commands/directory/csv';
import { DIRECTORY_CLI_ERROR_CODES, SYNC_ROW_CODES } from '../../../lib/cli/commands/directory/errors';

const A = '0C1D2E3F-0000-4000-8000-00000000000A';
const B = '0c1d2e3f-0000-4000-8000-00000000000b';

describe('parseContacts', () => {
  it('normalises phones to E.164, keeps crmId as written, trims values and leaves empty cells out when a row is good', () => {
    // Act
    const sheet = parseContacts(`crmId,FullName,phone1,email\r\n${A}, Amelia Hart ,07700 900123,\r\n`, 'GB');

    // Assess
    expect(sheet.columns).toEqual(['crmId', 'fullName', 'phone1', 'email']);
    expect(sheet.rows).toEqual([
      {
        line: 2,
        crmId: A,
        fields: { crmId: A, fullName: 'Amelia Hart', phone1: '+447700900123' },
      },
    ]);
    expect(sheet.bad).toEqual([]);
  });

  it('reads phones without a country code in the region given when it is not GB', () => {
    const sheet = parseContacts(`crmId,phone1\n${B},(201) 555-0123\n`, 'US');
    expect(sheet.rows[0]?.fields.phone1).toBe('+12015550123');
  });

  it('applies the first row and reports the second as a bad row when two rows share a crmId', () => {
    // Act
    const sheet = parseContacts(`crmId,fullName\n${A},First\n${A.toLowerCase()},Second\n`, 'GB');

    // Assess
    expect(sheet.rows.map((r) => r.fields.fullName)).toEqual(['First']);
    expect(sheet.bad).toEqual([
      expect.objectContaining({ line: 3, crmId: A.toLowerCase(), code: SYNC_ROW_CODES.crmIdDuplicate }),
    ]);
    expect(sheet.bad[0]?.reason).toContain('line 2');
  });

  it.each([
    ['a phone that is no number', `${A},12`, SYNC_ROW_CODES.phoneInvalid, true],
    ['an empty crmId', ',07700 900123', SYNC_ROW_CODES.crmIdMissing, false],
    ['a crmId that is no GUID', 'CRM-1,07700 900123', SYNC_ROW_CODES.crmIdInvalid, false],
    ['too few fields', `${A}`, SYNC_ROW_CODES.columnCount, false],
    ['too many fields', `${A},07700 900123,extra`, SYNC_ROW_CODES.columnCount, false],
    ['an unterminated quote', `${A},"07700`, CSV_FAULT_CODES.unterminatedQuote, false],
  ])('reports a bad row on its line when it has %s', (_case, row, code, crmIdKnown) => {
    // Act
    const sheet = parseContacts(`crmId,phone1\n${row}\n${B},07700 900456\n`, 'GB');

    // Assess
    expect(sheet.bad).toEqual([expect.objectContaining({ line: 2, code })]);
    expect(sheet.rows.map((r) => r.line)).toEqual([3]);
    // A bad row's crmId is never deleted by --delete-missing; an unreadable one blocks deletions.
    expect(sheet.crmIds.has(A.toLowerCase())).toBe(crmIdKnown);
    expect(sheet.unreadable).toBe(crmIdKnown || code === SYNC_ROW_CODES.phoneInvalid ? 0 : 1);
  });

  it('lists every problem of a row in one reason when a row has several', () => {
    const sheet = parseContacts(`crmId,phone1,phone2\n${A},12,abc\n`, 'GB');
    expect(sheet.bad[0]?.reason).toMatch(/phone1 '12'.*; phone2 'abc'/);
  });

  it.each([
    ['an unknown column', 'crmId,nickname\n', /unknown column 'nickname'/],
    ['no crmId column', 'fullName,phone1\n', /a crmId column is required/],
    ['a column twice', 'crmId,email,Email\n', /column 'email' appears twice/],
    ['nothing', '', /the file is empty/],
    ['a malformed header', '"crmId,email\n', /the header row is not readable/],
  ])('throws a header error naming the problem when the header has %s', (_case, text, message) => {
    expect(() => parseContacts(text, 'GB')).toThrow(message);
    expect(() => parseContacts(text, 'GB')).toThrow(
      expect.objectContaining({ code: DIRECTORY_CLI_ERROR_CODES.csvHeader, name: 'DirectoryCommandError' }),
    );
  });
});
