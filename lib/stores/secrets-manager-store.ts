import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { accessDeniedHint, permissionsOf, STORE_OPERATION_CALLS } from './aws-calls';
import { parseSecret, SECRET_STORE_ERROR_CODES, type SecretStore, SecretStoreError } from './secret-store';

export interface SecretsManagerStoreOptions {
  client: SecretsManagerClient;
  /** Per-call timeout in ms. Default 10 s. */
  timeoutMs?: number;
}

/**
 * SecretStore on AWS Secrets Manager: `get` reads AWSCURRENT, `put` adds a new version.
 * The secret itself is created by the infrastructure; `put` on a missing one fails.
 */
export class SecretsManagerStore implements SecretStore {
  readonly #client: SecretsManagerClient;
  readonly #timeoutMs: number;

  constructor(options: SecretsManagerStoreOptions) {
    this.#client = options.client;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
  }

  async get<T = unknown>(name: string): Promise<T | undefined> {
    let text: string | undefined;
    try {
      const out = await this.#client.send(new GetSecretValueCommand({ SecretId: name }), {
        abortSignal: AbortSignal.timeout(this.#timeoutMs),
      });
      text = out.SecretString;
    } catch (cause) {
      if (errorName(cause) === 'ResourceNotFoundException') return undefined;
      throw failure('get', name, cause);
    }
    return parseSecret<T>(name, text);
  }

  async put(name: string, value: unknown): Promise<void> {
    try {
      await this.#client.send(
        new PutSecretValueCommand({ SecretId: name, SecretString: JSON.stringify(value) }),
        {
          abortSignal: AbortSignal.timeout(this.#timeoutMs),
        },
      );
    } catch (cause) {
      throw failure('put', name, cause);
    }
  }
}

function errorName(error: unknown): string | undefined {
  return (error as { name?: string } | null)?.name;
}

/** The store's error for a failed call; when AWS refused it, the message names the permission needed. */
function failure(operation: 'get' | 'put', name: string, cause: unknown): SecretStoreError {
  const notFound = errorName(cause) === 'ResourceNotFoundException';
  const needs = permissionsOf(STORE_OPERATION_CALLS.secretsManagerStore[operation], { secretId: name });
  return new SecretStoreError(
    notFound ? SECRET_STORE_ERROR_CODES.notFound : SECRET_STORE_ERROR_CODES.failed,
    `Secrets Manager ${operation} failed for ${name} (${errorName(cause) ?? 'Error'})${accessDeniedHint(cause, needs)}`,
    // The SDK error holds no secret value (the value is only in our request), so keep it as cause.
    { secretName: name, cause },
  );
}
