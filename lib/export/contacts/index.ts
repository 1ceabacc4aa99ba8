/**
 * The contact directories in the lake (issue 29), AWS-free: the `contacts` and
 * `contact_phones` columns, a directory read whole, its versions (SCD2), its phones in
 * E.164 and the Parquet of both tables. See README.md.
 */

export {
  CALLS_WITH_CONTACTS_VIEW,
  type CallsWithContactsOptions,
  callsWithContactsSql,
  type ViewDialect,
} from './calls-with-contacts';
export {
  CONTACT_DATASETS,
  CONTACT_FIELD_ORDER,
  type ContactColumn,
  type ContactColumns,
  type ContactDataset,
  type ContactPhoneRow,
  type ContactRow,
  type ContactValue,
  contactPhonesColumns,
  contactsColumns,
  type OmittableField,
  omittedFields,
  PHONE_MATCHES,
  type PhoneMatch,
  personalColumns,
  type TableTenancy,
} from './columns';
export { type ContactsFileSchema, encodeContactsParquet } from './contacts-parquet';
export { MAX_CONTACTS_FILE_BYTES, readContactVersions } from './contacts-read';
export { type ContactContent, contactContent } from './content';
export { type DiallingFacts, diallingFacts, NO_DIALLING_FACTS } from './dialling';
export {
  ContactHistoryError,
  DirectoryListingIncompleteError,
  DirectoryNotListedError,
  DirectoryReadError,
} from './errors';
export { callNumberE164, contactPhoneRows, type NormalisedPhone, normalisePhone } from './phones';
export {
  type DirectoryReader,
  looksCapped,
  readWholeDirectory,
  type WholeDirectory,
  type WholeDirectoryOptions,
} from './read-directory';
export {
  type DirectoriesSyncResult,
  type DirectorySyncDeps,
  type DirectorySyncOutcome,
  type DirectorySyncSettings,
  prepareContactTables,
  type SyncError,
  syncDirectories,
} from './sync';
export {
  type DirectorySyncCounts,
  type DirectorySyncInput,
  type DirectorySyncResult,
  versionDirectory,
} from './versioning';
export { countryOfZone } from './zone-country';
