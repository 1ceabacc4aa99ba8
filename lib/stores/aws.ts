// The AWS adapters (S3, Secrets Manager, the S3 lease store, the Glue catalog) and the URI -> adapter choice,
// the folder's second entry: importing it loads the AWS SDK, which index.ts never does.
export {
  type AdapterOptions,
  catalogFromUri,
  leaseStoreFromUri,
  type ObjectLocation,
  objectStoreFromUri,
  parseS3Uri,
  secretStoreFromUri,
} from './from-uri';
export { createGlueClient, GlueCatalog, type GlueCatalogOptions, metadataName } from './glue-catalog';
export { DEFAULT_LEASE_PREFIX, leaseObjectKey } from './s3-lease-store';
export { createS3Client, S3Store, type S3StoreOptions } from './s3-store';
export { SecretsManagerStore, type SecretsManagerStoreOptions } from './secrets-manager-store';
export { noticeTopicFromUri, SnsNoticeTopic } from './sns-notice-topic';
export {
  type CredentialProvider,
  createStsClient,
  TENANT_SESSION_TAG,
  type TemporaryCredentials,
  type TenantCredentialsOptions,
  tenantAdapterOptions,
  tenantCredentials,
} from './tenant-credentials';
