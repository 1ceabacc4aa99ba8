import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalFileSecretStore, SECRET_STORE_ERROR_CODES } from '../../../lib/stores';
import { SecretsManagerStore } from '../../../lib/stores/aws';

describe('SecretsManagerStore', () => {
  const sm = mockClient(SecretsManagerClient);
  afterEach(() => {
    sm.reset();
  });

  it('returns the parsed JSON when the secret exists', async () => {
    // Prepare
    sm.on(GetSecretValueCommand, { SecretId: 'app/tokens' }).resolves({
      SecretString: '{"refreshToken":"r1"}',
    });
    const store = new SecretsManagerStore({ client: new SecretsManagerClient({ region: 'eu-west-2' }) });

    // Act
    const value = await store.get<{ refreshToken: string }>('app/tokens');

    // Assess
    expect(value).toEqual({ refreshToken: 'r1' });
  });

  it('returns undefined when the secret does not exist', async () => {
    // Prepare
    sm.on(GetSecretValueCommand).rejects(new ResourceNotFoundException({ message: 'nope', $metadata: {} }));
    const store = new SecretsManagerStore({ client: new SecretsManagerClient({ region: 'eu-west-2' }) });

    // Act
    const value = await store.get('missing');

    // Assess
    expect(value).toBeUndefined();
  });

  it('writes the value as a JSON SecretString when put is called', async () => {
    // Prepare
    sm.on(PutSecretValueCommand).resolves({});
    const store = new SecretsManagerStore({ client: new SecretsManagerClient({ region: 'eu-west-2' }) });

    // Act
    await store.put('app/tokens', { refreshToken: 'r2' });

    // Assess
    const calls = sm.commandCalls(PutSecretValueCommand);
    expect(calls.map((c) => c.args[0].input)).toEqual([
      { SecretId: 'app/tokens', SecretString: '{"refreshToken":"r2"}' },
    ]);
  });

  it.each([
    {
      name: 'the stored text is not JSON',
      setup: () => sm.on(GetSecretValueCommand).resolves({ SecretString: 'secret-value{' }),
      code: SECRET_STORE_ERROR_CODES.invalidValue,
    },
    {
      name: 'the service fails',
      setup: () => sm.on(GetSecretValueCommand).rejects(new Error('secret-value throttled')),
      code: SECRET_STORE_ERROR_CODES.failed,
    },
  ])('fails with $code without echoing the value when $name', async ({ setup, code }) => {
    // Prepare
    setup();
    const store = new SecretsManagerStore({ client: new SecretsManagerClient({ region: 'eu-west-2' }) });

    // Act
    const error: unknown = await store.get('app/tokens').then(
      () => undefined,
      (e: unknown) => e,
    );

    // Assess
    expect(error).toMatchObject({ code, secretName: 'app/tokens' });
    expect((error as Error).message).not.toContain('secret-value');
  });
});

describe('LocalFileSecretStore', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'secrets-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads back what was put and keeps other secrets when several are stored', async () => {
    // Prepare
    const store = new LocalFileSecretStore(join(dir, 'secrets.json'));

    // Act
    await Promise.all([store.put('a', { token: 1 }), store.put('b', { token: 2 })]);
    await store.put('a', { token: 3 });

    // Assess
    expect(await store.get('a')).toEqual({ token: 3 });
    expect(await store.get('b')).toEqual({ token: 2 });
    expect(await store.get('c')).toBeUndefined();
  });

  it('writes the file with mode 0600 and leaves no temp file when put is called', async () => {
    // Prepare
    const file = join(dir, 'nested', 'secrets.json');
    const store = new LocalFileSecretStore(file);

    // Act
    await store.put('a', 'x');

    // Assess
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ a: 'x' });
    const { readdir } = await import('node:fs/promises');
    expect(await readdir(join(dir, 'nested'))).toEqual(['secrets.json']);
  });

  it('fails with SECRET_VALUE_INVALID when the file is not a JSON object', async () => {
    // Prepare
    const file = join(dir, 'secrets.json');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(file, '[1,2]');
    const store = new LocalFileSecretStore(file);

    // Act
    const get = store.get('a');

    // Assess
    await expect(get).rejects.toMatchObject({ code: SECRET_STORE_ERROR_CODES.invalidValue });
  });
});
