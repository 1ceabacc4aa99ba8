// The folder's surface without the AWS SDK: the ports, the local adapters and the process
// checks. The AWS adapters are the second entry, ./aws.ts, so that what runs without AWS
// (the export core, its encode worker, the local runtime) never loads the SDK.
export {
  AWS_CALLS,
  type AwsCallName,
  type IamPermission,
  isAccessDenied,
  STORE_OPERATION_CALLS,
  type TargetOf,
} from './aws-calls';
export {
  type Catalog,
  type CatalogColumn,
  type CatalogCommit,
  CatalogRequestError,
  type CatalogTable,
  CommitConflictError,
  CommitStateUnknownError,
  type TableIdentifier,
} from './catalog';
export {
  type CatalogLocation,
  type CatalogSetting,
  catalogFromUri,
  fileCatalogOf,
  parseCatalogSetting,
} from './catalog-setting';
export {
  FileCatalog,
  type FileCatalogOptions,
  tableRootKey,
  versionHintKey,
  versionMetadataKey,
} from './file-catalog';
export { describeLeaseHolder } from './lease-holder';
export type { Lease, LeaseStore } from './lease-store';
export { LocalDirectoryStore } from './local-directory-store';
export { LocalFileSecretStore } from './local-file-secret-store';
export { LocalLeaseStore } from './local-lease-store';
export { LocalFileNoticeTopic, type Notice, type NoticeTopic } from './notice-topic';
export {
  checkKey,
  isMachineLocal,
  listAll,
  type MachineLocalStore,
  OBJECT_STORE_ERROR_CODES,
  type ObjectBody,
  type ObjectInfo,
  type ObjectStore,
  ObjectStoreError,
  type ObjectStoreErrorCode,
  objectKeyOfUri,
  objectUri,
  type PutOptions,
  readObject,
  readObjectIfPresent,
  readTextAtUri,
} from './object-store';
export {
  currentProcess,
  describeProcess,
  type ProcessIdentity,
  parseProcessIdentity,
  processAlive,
  processGone,
  processStartedAtMs,
  processStartTime,
} from './process-identity';
export {
  SECRET_STORE_ERROR_CODES,
  type SecretStore,
  SecretStoreError,
  type SecretStoreErrorCode,
} from './secret-store';
export { StoreUriError } from './store-uri-error';
