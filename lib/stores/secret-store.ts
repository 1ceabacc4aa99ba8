/**
 * Port for secrets stored as JSON documents (the client secret, refresh and access
 * tokens). Values never appear in errors or logs: errors name the secret, not its content.
 */
export interface SecretStore {
  /** The secret's JSON value, or undefined when the secret does not exist or is empty. */
  get<T = unknown>(name: string): Promise<T | undefined>;
  /** Replaces the secret's value. */
  put(name: string, value: unknown): Promise<void>;
}

/** Stable codes of secret store failures; callers match on these, never on messages. */
export const SECRET_STORE_ERROR_CODES = {
  invalidName: 'SECRET_STORE_NAME_INVALID',
  invalidValue: 'SECRET_STORE_VALUE_INVALID',
  notFound: 'SECRET_STORE_NOT_FOUND',
  failed: 'SECRET_STORE_FAILED',
} as const;
export type SecretStoreErrorCode = (typeof SECRET_STORE_ERROR_CODES)[keyof typeof SECRET_STORE_ERROR_CODES];

/** Base error of the secret stores; carries the secret's name, never its value. */
export class SecretStoreError extends Error {
  readonly code: SecretStoreErrorCode;
  readonly secretName: string;

  constructor(code: SecretStoreErrorCode, message: string, options: { secretName: string; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SecretStoreError';
    this.code = code;
    this.secretName = options.secretName;
  }
}

/** Parses a stored secret; a parse error is reported without echoing the text. */
export function parseSecret<T>(name: string, text: string | undefined): T | undefined {
  if (text === undefined || text === '') return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new SecretStoreError(SECRET_STORE_ERROR_CODES.invalidValue, `Secret ${name} is not valid JSON`, {
      secretName: name,
    });
  }
}
