export {
  AWS_CALLS,
  type AwsCallName,
  type IamPermission,
  STORE_OPERATION_CALLS,
  type TargetOf,
} from './aws-calls';
export {
  type AdapterOptions,
  leaseStoreFromUri,
  type ObjectLocation,
  objectStoreFromUri,
  parseS3Uri,
  secretStoreFromUri,
} from './from-uri';
export { describeLeaseHolder } from './lease-holder';
export type { Lease, LeaseStore } from './lease-store';
export { LocalDirectoryStore } from './local-directory-store';
export { LocalFileSecretStore } from './local-file-secret-store';
export { LocalLeaseStore } from './local-lease-store';
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
  type PutOptions,
  readObject,
  readObjectIfPresent,
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
export { DEFAULT_LEASE_PREFIX, leaseObjectKey } from './s3-lease-store';
export { createS3Client, S3Store, type S3StoreOptions } from './s3-store';
export {
  SECRET_STORE_ERROR_CODES,
  type SecretStore,
  SecretStoreError,
  type SecretStoreErrorCode,
} from './secret-store';
export { SecretsManagerStore, type SecretsManagerStoreOptions } from './secrets-manager-store';
