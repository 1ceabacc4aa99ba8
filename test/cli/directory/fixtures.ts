import { CSV_FAULT_CODES } from '../../../lib/cli/commands/directory/csv';
import { SYNC_ROW_CODES } from '../../../lib/cli/commands/directory/errors';
import { createSeed, DEFAULT_SEED } from '../../../lib/simulator/seed';

/** The seeded "Company contacts" directory and its first two contacts. */
function seededContacts() {
  const contacts = createSeed(DEFAULT_SEED).directories[0];
  const [amelia, tomas] = contacts?.items ?? [];
  if (contacts === undefined || amelia === undefined || tomas === undefined)
    throw new Error('unexpected seed');
  return { contacts, amelia, tomas };
}
export const { contacts, amelia, tomas } = seededContacts();

/** crmIds of the new rows of {@link CSV}. */
export const NEW = [
  'a0000000-0000-4000-8000-000000000001',
  'a0000000-0000-4000-8000-000000000002',
  'a0000000-0000-4000-8000-000000000003',
];

/**
 * A file with every kind of row: three new, one changed (jobTitle, and an empty email
 * cell removes the email), one unchanged (its phone written differently, its crmId in
 * upper case), a duplicate crmId, an unterminated quote, a wrong column count and a bad
 * phone.
 */
export const CSV = [
  'crmId,fullName,companyName,jobTitle,phone1,email',
  `${NEW[0]},Ann Lee,Lee Ltd,Buyer,07700 900001,ann@lee.example`,
  `${amelia.fields.crmId},Amelia Hart,Hart & Daughters Ltd,COO,+447700900123,`,
  `${tomas.fields.crmId?.toUpperCase()},Tomás Ó Briain,"Dublin Freight, Ltd.",Account Manager,+353 20 913 0456,tomas@dublinfreight.example`,
  `${NEW[1]},"Bob ""Bobby"" Stone",Stone & Co,,020 7946 0002,bob@stone.example`,
  `${NEW[0]},Ann Lee again,Lee Ltd,Buyer,07700 900001,ann@lee.example`,
  `${NEW[2]},"Carol,Carol Ltd,,07700 900003,carol@example.com`,
  `a0000000-0000-4000-8000-000000000004,Dan,Dan Ltd,07700 900004,dan@example.com`,
  'a0000000-0000-4000-8000-000000000005,Eve,Eve Ltd,,12,eve@example.com',
  `${NEW[2]},Carol Jones,Carol Ltd,,07700 900003,carol@example.com`,
].join('\r\n');

/** Lines and codes of the bad rows of {@link CSV}. */
export const BAD_ROWS = [
  { line: 6, code: SYNC_ROW_CODES.crmIdDuplicate },
  { line: 7, code: CSV_FAULT_CODES.unterminatedQuote },
  { line: 8, code: SYNC_ROW_CODES.columnCount },
  { line: 9, code: SYNC_ROW_CODES.phoneInvalid },
];

/** A new contact, Ann Lee, with `crmId`: the options `create` takes, and the fields it stores. */
export function annLee(crmId: string): { options: string[]; fields: Record<string, string> } {
  return {
    options: ['--full-name', 'Ann Lee', '--phone1', '07700 900001', '--crm-id', crmId],
    fields: { fullName: 'Ann Lee', phone1: '+447700900001', crmId },
  };
}
