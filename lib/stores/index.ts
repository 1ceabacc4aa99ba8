export { LocalDirectoryStore } from './local-directory-store';
export { LocalFileSecretStore } from './local-file-secret-store';
export {
  checkKey,
  listAll,
  OBJECT_STORE_ERROR_CODES,
  type ObjectBody,
  type ObjectInfo,
  type ObjectStore,
  ObjectStoreError,
  type ObjectStoreErrorCode,
  type PutOptions,
  readObject,
} from './object-store';
export { createS3Client, S3Store, type S3StoreOptions } from './s3-store';
export {
  SECRET_STORE_ERROR_CODES,
  type SecretStore,
  SecretStoreError,
  type SecretStoreErrorCode,
} from './secret-store';
export { SecretsManagerStore, type SecretsManagerStoreOptions } from './secrets-manager-store';
