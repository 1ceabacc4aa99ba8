import { DIRECTORY_FIELD_NAMES, type DirectoryFieldName } from '../../spec';
import { ExportConfigError } from '../errors';
import { type ColumnDefinition, type ColumnKind, type ColumnSet, columnName } from '../schema';
import { DIRECTORY_DATASETS, type DirectoryDataset } from '../table';
import type { DiallingFacts } from './dialling';

/** The tables of the contact directories, beside the report datasets' (named where the table layer maps them). */
export const CONTACT_DATASETS = DIRECTORY_DATASETS;
export type ContactDataset = DirectoryDataset;

/** A value of a contacts column as its record holds it: timestamps are epoch milliseconds. */
export type ContactValue = string | number | boolean | null;

/**
 * One column of a contacts table: a schema.ts column (name, kind, doc) plus whether it holds
 * personal data and how its value is read from the table's record.
 */
export interface ContactColumn<Row> extends ColumnDefinition {
  /**
   * It may identify a person or hold what is written about one (a name, a number, free
   * text): what a deployment's data protection review lists, and may leave out of the lake.
   */
  readonly personal: boolean;
  readonly value: (row: Row) => ContactValue;
}

/** The columns of one contacts table: a ColumnSet for the encoders, with each column's reader. */
export interface ContactColumns<Row> extends ColumnSet {
  readonly dataset: ContactDataset;
  readonly columns: readonly ContactColumn<Row>[];
}

/**
 * One version of a directory item: a row of `contacts`. `fields` holds the item's fields the
 * spec names, as sent (a field the deployment leaves out, or a value that is not a string, is
 * absent); `extra` the rest of the item as canonical JSON text.
 */
export interface ContactRow {
  /** Undefined in a single-tenant lake (its tables have no tenant column). */
  readonly tenant: string | undefined;
  readonly directoryId: string;
  readonly directoryName: string;
  readonly itemId: string;
  readonly fields: Readonly<Partial<Record<DirectoryFieldName, string>>>;
  readonly extra: string | null;
  /** Epoch ms: the sync that saw this content first. Part of the version's key. */
  readonly validFrom: number;
  /** Epoch ms: the sync that saw it changed or gone; null while current. */
  readonly validTo: number | null;
  readonly isCurrent: boolean;
  readonly isDeleted: boolean;
  readonly contentHash: string;
}

/** How a phone of a version was read: see `normalisePhone`. */
export const PHONE_MATCHES = { e164: 'e164', national: 'national', invalid: 'invalid' } as const;
export type PhoneMatch = (typeof PHONE_MATCHES)[keyof typeof PHONE_MATCHES];

/** One phone field of one version: a row of `contact_phones`. */
export interface ContactPhoneRow extends DiallingFacts {
  readonly tenant: string | undefined;
  readonly directoryId: string;
  readonly itemId: string;
  readonly validFrom: number;
  readonly phoneField: DirectoryFieldName;
  readonly phoneAsSent: string;
  readonly phoneE164: string | null;
  readonly match: PhoneMatch;
  readonly isCurrent: boolean;
}

/** What a deployment may leave out of the lake: an item field the spec names, or `extra`. */
export type OmittableField = DirectoryFieldName | 'extra';

/**
 * Item fields in column order: the CRM's key first (what a join to the CRM takes), then the
 * spec's order. Every field of the spec exactly once.
 */
export const CONTACT_FIELD_ORDER: readonly DirectoryFieldName[] = [
  'crmId',
  ...DIRECTORY_FIELD_NAMES.filter((f) => f !== 'crmId'),
];

/** Fields that are not personal data by themselves: an organisation, and the CRM's key. */
const NOT_PERSONAL: ReadonlySet<DirectoryFieldName> = new Set(['crmId', 'companyName']);

const FIELD_TEXT: Partial<Record<DirectoryFieldName, string>> = {
  crmId: "The item's id (GUID) in the customer's CRM; a pseudonymous key.",
  title: 'Form of address (Mr, Dr).',
  fullName: 'Name of the contact.',
  companyName: 'Company of the contact.',
  jobTitle: 'Job title of the contact.',
  email: 'E-mail address.',
  avatar: 'Picture of the contact (as the service sends it: a URL or data).',
};

function fieldText(field: DirectoryFieldName): string {
  const known = FIELD_TEXT[field];
  if (known !== undefined) return known;
  if (field.startsWith('phone'))
    return 'Phone number as sent (the service stores E.164); see contact_phones.';
  return 'Free field of the directory: its meaning is the customer’s.';
}

function column<Row>(
  name: string,
  kind: ColumnKind,
  nullable: boolean,
  personal: boolean,
  description: string,
  value: (row: Row) => ContactValue,
  member: string = name,
): ContactColumn<Row> {
  return { name, kind, nullable, personal, description, value, source: { from: 'record', member } };
}

const TENANT_TEXT = 'The tenant (customer) whose directory this is; the first partition key.';
const DIRECTORY_TEXT = "The directory's id (GUID); the second partition key. The service's member id.";
const ITEM_TEXT = "The item's id (GUID), assigned by the service. The service's member id.";
const VALID_FROM_TEXT = 'When the sync that first saw this content ran (UTC); with item_id the version key.';
const IS_CURRENT_TEXT = "The item's latest version (one per item, a deletion version included).";

function fieldColumn(field: DirectoryFieldName): ContactColumn<ContactRow> {
  return column<ContactRow>(
    columnName(field),
    'string',
    true,
    !NOT_PERSONAL.has(field),
    `${fieldText(field)} The service's item field ${field}.`,
    (row) => row.fields[field] ?? null,
    field,
  );
}

/** The fields a deployment leaves out, checked (ExportConfigError naming an unknown one). */
export function omittedFields(omitFields: readonly string[]): ReadonlySet<OmittableField> {
  const allowed: readonly string[] = [...DIRECTORY_FIELD_NAMES, 'extra'];
  for (const f of omitFields) {
    if (!allowed.includes(f)) {
      throw new ExportConfigError(
        `contacts omitFields: ${JSON.stringify(f)} is not an item field; give the service's field names (${allowed.join(', ')})`,
      );
    }
  }
  return new Set(omitFields as readonly OmittableField[]);
}

/**
 * The `contacts` table's columns: tenant, directory, item, each item field of the spec
 * (CONTACT_FIELD_ORDER), `extra`, the history and the content hash.
 *
 * `omitFields` (the deployment's) names item fields (`email`) or `extra` to leave out of the
 * lake: their columns are absent from the schema, not present and NULL. An absent column
 * cannot be read by mistake, does not tell a reader it holds data, and is added back by
 * schema evolution (a new field id, NULL in older files) if the deployment changes its mind;
 * a NULL column would look like contacts without an e-mail. The versioning leaves an omitted
 * field out too (see `contactContent`): its changes make no version and leave no trace.
 */
export function contactsColumns(
  options: { omitFields?: readonly string[] } & TableTenancy = {},
): ContactColumns<ContactRow> {
  const omit = omittedFields(options.omitFields ?? []);
  const columns: ContactColumn<ContactRow>[] = [
    ...tenantColumn<ContactRow>(options),
    column('directory_id', 'string', false, false, DIRECTORY_TEXT, (r) => r.directoryId, 'directoryId'),
    column(
      'directory_name',
      'string',
      false,
      false,
      "The directory's name; on current versions as of the latest sync. The service's member name.",
      (r) => r.directoryName,
      'directoryName',
    ),
    column('item_id', 'string', false, false, ITEM_TEXT, (r) => r.itemId, 'itemId'),
    ...CONTACT_FIELD_ORDER.filter((f) => !omit.has(f)).map(fieldColumn),
  ];
  if (!omit.has('extra')) {
    columns.push({
      ...column(
        'extra',
        'string',
        true,
        true,
        'The item\'s members the spec does not name (in fields or beside them), as canonical JSON text shaped like the item ({"fields":{...},...}, keys sorted); NULL when there are none.',
        (r) => r.extra,
      ),
      content: 'json',
    });
  }
  columns.push(
    column('valid_from', 'utcTimestamp', false, false, VALID_FROM_TEXT, (r) => r.validFrom, 'validFrom'),
    column(
      'valid_to',
      'utcTimestamp',
      true,
      false,
      'When the sync that saw this content changed or gone ran (UTC); NULL while current.',
      (r) => r.validTo,
      'validTo',
    ),
    column('is_current', 'boolean', false, false, IS_CURRENT_TEXT, (r) => r.isCurrent, 'isCurrent'),
    column(
      'is_deleted',
      'boolean',
      false,
      false,
      'A deletion version: the item was gone from the directory from valid_from on (its fields are its last version’s).',
      (r) => r.isDeleted,
      'isDeleted',
    ),
    column(
      'content_hash',
      'string',
      false,
      false,
      "SHA-256 (hex) of the version's canonical content (fields and extra as kept): equal content, equal hash.",
      (r) => r.contentHash,
      'contentHash',
    ),
  );
  return { dataset: CONTACT_DATASETS.contacts, columns };
}

/** The `contact_phones` table's columns: one row per (live version, phone field with a value). */
export function contactPhonesColumns(options: TableTenancy = {}): ContactColumns<ContactPhoneRow> {
  const columns: ContactColumn<ContactPhoneRow>[] = [
    ...tenantColumn<ContactPhoneRow>(options),
    column('directory_id', 'string', false, false, DIRECTORY_TEXT, (r) => r.directoryId, 'directoryId'),
    column('item_id', 'string', false, false, ITEM_TEXT, (r) => r.itemId, 'itemId'),
    column(
      'valid_from',
      'utcTimestamp',
      false,
      false,
      'The version this number belongs to (contacts.valid_from of the same item).',
      (r) => r.validFrom,
      'validFrom',
    ),
    column(
      'phone_field',
      'string',
      false,
      false,
      "Which field held the number: phone1 to phone4 (the service's item field names).",
      (r) => r.phoneField,
      'phoneField',
    ),
    column(
      'phone_as_sent',
      'string',
      false,
      true,
      'The number exactly as the service sent it.',
      (r) => r.phoneAsSent,
      'phoneAsSent',
    ),
    column(
      'phone_e164',
      'string',
      true,
      true,
      "The number in E.164 (+447700900123), read with the tenant's country when it had no +; NULL when it is no possible number.",
      (r) => r.phoneE164,
      'phoneE164',
    ),
    column(
      'match',
      'string',
      false,
      false,
      "How phone_e164 was found: e164 (sent with its country code), national (read with the tenant's country), invalid.",
      (r) => r.match,
    ),
    column('is_current', 'boolean', false, false, IS_CURRENT_TEXT, (r) => r.isCurrent, 'isCurrent'),
    column(
      'dial_country',
      'string',
      true,
      false,
      "The country (ISO 3166-1 alpha-2) the tenant's numbers are read in: its registry entry's, else its time zone's; NULL when it has none. The same on every row of a tenant.",
      (r) => r.dialCountry,
      'dialCountry',
    ),
    column(
      'calling_code',
      'string',
      true,
      false,
      "dial_country's calling code, digits (44): what a call's national number is prefixed with to be E.164; NULL without a country.",
      (r) => r.callingCode,
      'callingCode',
    ),
    column(
      'idd_prefix',
      'string',
      true,
      false,
      "The international prefix dialled from dial_country, digits (00, 011, 0011): a call's number starting with it is international; NULL without a country or where the country has no single default.",
      (r) => r.iddPrefix,
      'iddPrefix',
    ),
    column(
      'trunk_prefix',
      'string',
      true,
      false,
      "dial_country's national (trunk) prefix, digits ('0'; NANP '1'), '' where it has none: dropped from a call's national number; NULL without a country.",
      (r) => r.trunkPrefix,
      'trunkPrefix',
    ),
  ];
  return { dataset: CONTACT_DATASETS.contactPhones, columns };
}

/**
 * Whether the tables are a multi-tenant lake's: a `tenant` column first (identity(tenant)
 * the first partition field). A single-tenant lake's tables have none, as its calls have none.
 * @default true
 */
export interface TableTenancy {
  tenanted?: boolean;
}

function tenantColumn<Row extends { readonly tenant: string | undefined }>(
  options: TableTenancy,
): ContactColumn<Row>[] {
  if (options.tenanted === false) return [];
  return [column<Row>('tenant', 'string', false, false, TENANT_TEXT, (r) => r.tenant ?? null)];
}

/** Names of the columns that hold personal data, in column order: what the README lists. */
export function personalColumns<Row>(table: ContactColumns<Row>): string[] {
  return table.columns.filter((c) => c.personal).map((c) => c.name);
}
