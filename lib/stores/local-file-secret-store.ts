import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { parseSecret, SECRET_STORE_ERROR_CODES, type SecretStore, SecretStoreError } from './secret-store';

/**
 * SecretStore on one local JSON file holding `{ name: value }`, for local runs. Each put
 * writes a temp file created with mode 0600, fsyncs it and renames it over the file, so
 * the file is never half-written and never readable by others. Puts in one process are
 * serialised; the file is for one process at a time.
 */
export class LocalFileSecretStore implements SecretStore {
  readonly file: string;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(file: string) {
    this.file = path.resolve(file);
  }

  async get<T = unknown>(name: string): Promise<T | undefined> {
    checkName(name);
    const all = await this.#read();
    const value = all[name];
    return value === undefined ? undefined : parseSecret<T>(name, JSON.stringify(value));
  }

  put(name: string, value: unknown): Promise<void> {
    checkName(name);
    const run = this.#queue.then(async () => {
      const all = await this.#read();
      all[name] = value;
      await this.#write(all, name);
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #read(): Promise<Record<string, unknown>> {
    let text: string;
    try {
      text = await fs.readFile(this.file, 'utf8');
    } catch (cause) {
      if ((cause as { code?: string }).code === 'ENOENT') return {};
      throw new SecretStoreError(SECRET_STORE_ERROR_CODES.failed, `Cannot read the secrets file`, {
        secretName: '*',
        cause,
      });
    }
    const parsed = parseSecret<Record<string, unknown>>('*', text) ?? {};
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new SecretStoreError(
        SECRET_STORE_ERROR_CODES.invalidValue,
        'The secrets file is not a JSON object',
        {
          secretName: '*',
        },
      );
    }
    return parsed;
  }

  async #write(all: Record<string, unknown>, name: string): Promise<void> {
    await fs.mkdir(path.dirname(this.file), { recursive: true });
    const temp = `${this.file}.~tmp-${randomUUID()}`;
    try {
      const handle = await fs.open(temp, 'wx', 0o600);
      try {
        await handle.writeFile(`${JSON.stringify(all, null, 2)}\n`, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fs.rename(temp, this.file);
    } catch (cause) {
      await fs.rm(temp, { force: true });
      throw new SecretStoreError(SECRET_STORE_ERROR_CODES.failed, `Cannot write secret ${name}`, {
        secretName: name,
        cause,
      });
    }
  }
}

function checkName(name: string): void {
  if (name === '' || name.length > 512) {
    throw new SecretStoreError(SECRET_STORE_ERROR_CODES.invalidName, 'Secret name must be 1-512 characters', {
      secretName: name.slice(0, 64),
    });
  }
}
