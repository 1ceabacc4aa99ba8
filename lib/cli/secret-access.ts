import { stat } from 'node:fs/promises';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { createClient, type FetchLike, refreshTokens, type ServiceClient } from '../api';
import { LocalFileSecretStore, SecretsManagerStore } from '../stores';
import { leaseStoreFromUri } from '../stores/from-uri';
import type { SecretStore } from '../stores/secret-store';
import { SecretTokenSource, type ServiceSecret } from '../workflow/service-secret';
import { type ResolvedConfig, type SecretLocation, secretLocation, serviceUrls } from './config';
import { ConfigError } from './options';
import type { S3ClientFactory } from './s3-client';

/** Clients the commands build from the environment by default; tests pass doubles. */
export interface AwsClients {
  secretsManager?: () => SecretsManagerClient;
  s3?: S3ClientFactory;
  fetch?: FetchLike;
}

/** The store holding the secret and the secret's name in it (`service` in a local file). */
export function openSecretStore(
  location: SecretLocation,
  clients: AwsClients = {},
): { store: SecretStore; name: string } {
  if (location.kind === 'file') return { store: new LocalFileSecretStore(location.file), name: 'service' };
  const client = clients.secretsManager?.() ?? new SecretsManagerClient({});
  return { store: new SecretsManagerStore({ client }), name: location.secretId };
}

/** The workflow's `SECRET_URI` for a location (file URL, Secrets Manager ARN or `secretsmanager:<name>`). */
export function secretUri(location: SecretLocation): string {
  if (location.kind === 'file') return pathToFileURL(location.file).href;
  return location.secretId.startsWith('arn:') ? location.secretId : `secretsmanager:${location.secretId}`;
}

/** The lease store URI: configured, else `./.report-export/leases`. */
export function leaseStoreUri(config: ResolvedConfig, cwd = process.cwd()): string {
  return config.leaseStore?.value ?? pathToFileURL(path.resolve(cwd, '.report-export', 'leases')).href;
}

/** A client of the service on the stored secret: tokens refreshed under the lease, rotated ones stored. */
export async function serviceClientFromSecret(
  config: ResolvedConfig,
  clients: AwsClients = {},
): Promise<{ client: ServiceClient; secret: ServiceSecret; tokens: SecretTokenSource }> {
  const location = secretLocation(config);
  if (location.kind === 'file' && (await stat(location.file).catch(() => undefined)) === undefined) {
    throw new ConfigError(
      `the secret file ${path.resolve(location.file)} (--secret-file) does not exist: run report-export login first, or pass the --secret-file it wrote`,
    );
  }
  const { store, name } = openSecretStore(location, clients);
  const fetchOption = clients.fetch === undefined ? {} : { fetch: clients.fetch };
  const tokens = new SecretTokenSource({
    secrets: store,
    secretName: name,
    leases: leaseStoreFromUri('--lease-store', leaseStoreUri(config), clients.s3 ? { s3: clients.s3 } : {}),
    refresh: (client, refreshToken, signal) =>
      refreshTokens(client, refreshToken, { transport: fetchOption, ...(signal ? { signal } : {}) }),
  });
  const secret = await tokens.read();
  const baseUrl = serviceUrls(config).baseUrl?.value ?? secret.baseUrl;
  const client = createClient({
    baseUrl,
    auth: tokens,
    timeoutMs: 30_000,
    ...(config.workspace ? { workspaceId: config.workspace.value } : {}),
    ...fetchOption,
  });
  return { client, secret, tokens };
}

/** The configured workspace, else the service's default one (else its first). */
export async function resolveWorkspace(config: ResolvedConfig, client: ServiceClient): Promise<string> {
  let first: string | undefined;
  let preferred: string | undefined;
  const ids: string[] = [];
  for await (const w of client.reporting.listWorkspaces()) {
    ids.push(w.id);
    if (w.default) preferred ??= w.id;
    first ??= w.id;
  }
  // A mistyped id would otherwise surface later as a bare 404 of some report call.
  if (config.workspace) {
    if (ids.includes(config.workspace.value)) return config.workspace.value;
    throw new ConfigError(
      `${config.workspace.where === 'default' ? '--workspace' : config.workspace.where} ${config.workspace.value} is not a workspace of this login; workspaces: ${ids.join(', ') || 'none'}`,
    );
  }
  if (preferred !== undefined) return preferred;
  if (first === undefined) throw new Error('The service lists no workspace for this login');
  return first;
}
