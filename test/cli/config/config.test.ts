import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_COMMAND } from '../../../lib/cli/commands/config/spec';
import { CONFIG_KEYS, resolveConfig, secretLocation, serviceUrls } from '../../../lib/cli/shared/config';
import { defineCommand, parseCommandLine, renderHelp, UsageError } from '../../../lib/command-line/options';
import { runInProcess } from '../../support/cli-in-process';
import { runCli } from '../../support/cli-process';

describe('resolveConfig', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'config-'));
    await writeFile(
      join(dir, 'report-export.config.json'),
      JSON.stringify({ region: 'au', clientId: 'from-file', workspace: 'ws-file', timeZone: 'Europe/Paris' }),
    );
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('takes a flag over the environment over the file over the default when a setting is in several layers', async () => {
    // Act
    const config = await resolveConfig({
      flags: { 'client-id': 'from-flag' },
      env: { REPORT_EXPORT_CLIENT_ID: 'from-env', REPORT_EXPORT_WORKSPACE_ID: 'ws-env' },
      cwd: dir,
    });

    // Assess
    expect(config.clientId).toEqual({ value: 'from-flag', source: 'flag', where: '--client-id' });
    expect(config.workspace).toMatchObject({
      value: 'ws-env',
      source: 'env',
      where: 'REPORT_EXPORT_WORKSPACE_ID',
    });
    expect(config.timeZone).toMatchObject({ value: 'Europe/Paris', source: 'file' });
    expect(config.redirectUri).toMatchObject({ value: 'http://127.0.0.1:8000/', source: 'default' });
  });

  it('derives the production URLs from the region unless a URL at the same or a higher layer names another', async () => {
    // Act
    const fromFile = serviceUrls(await resolveConfig({ flags: {}, env: {}, cwd: dir }));
    const flagBeatsRegion = serviceUrls(
      await resolveConfig({ flags: { 'base-url': 'http://127.0.0.1:9/api' }, env: {}, cwd: dir }),
    );
    const regionBeatsFile = serviceUrls(
      await resolveConfig({
        flags: { region: 'uk' },
        env: { REPORT_EXPORT_BASE_URL: 'http://x/api' },
        cwd: dir,
      }),
    );

    // Assess
    expect(fromFile.baseUrl?.value).toBe('https://api.au.myreports.cloud/api');
    expect(fromFile.authUrl?.value).toBe('https://login.xarios.cloud');
    expect(flagBeatsRegion.baseUrl?.value).toBe('http://127.0.0.1:9/api');
    expect(regionBeatsFile.baseUrl?.value).toBe('https://api.uk.myreports.cloud/api');
  });

  it.each([
    { flags: { region: 'mars' }, env: {}, message: "--region must be one of na, uk, eu, au, got 'mars'" },
    {
      flags: {},
      env: { REPORT_EXPORT_TIME_ZONE: 'Mars/Base' },
      message: 'REPORT_EXPORT_TIME_ZONE must be an IANA time zone',
    },
    {
      flags: {},
      env: { REPORT_EXPORT_BASE_URL: 'ftp://x' },
      message: 'REPORT_EXPORT_BASE_URL must be an http(s) URL',
    },
    { flags: { config: 'missing.json' }, env: {}, message: 'cannot read config file' },
  ])(
    'throws a ConfigError naming where the value came from when it is not acceptable: $message',
    async ({ flags, env, message }) => {
      // Act
      const attempt = resolveConfig({ flags, env, cwd: dir });
      // Assess
      await expect(attempt).rejects.toMatchObject({
        name: 'ConfigError',
        code: 'CLI_CONFIG_INVALID',
        exitCode: 2,
      });
      await expect(attempt).rejects.toThrow(message);
    },
  );

  it('names the unknown key when the config file has one', async () => {
    // Prepare
    const file = join(dir, 'typo.json');
    await writeFile(file, JSON.stringify({ regoin: 'uk' }));
    // Act
    const attempt = resolveConfig({ flags: { config: file }, env: {}, cwd: dir });
    // Assess
    await expect(attempt).rejects.toThrow("unknown key 'regoin'");
  });

  it('treats an empty REPORT_EXPORT_CLIENT_SECRET as unset when it is exported empty', async () => {
    // Act
    const attempt = resolveConfig({ flags: {}, env: { REPORT_EXPORT_CLIENT_SECRET: '' }, cwd: dir });
    // Assess
    await expect(attempt).resolves.not.toHaveProperty('clientSecret');
  });
});

describe('secretLocation', () => {
  it.each([
    { flags: {}, env: {}, kind: 'file' },
    { flags: {}, env: { REPORT_EXPORT_SECRET_ID: 'prod' }, kind: 'secrets-manager' },
    { flags: { 'secret-file': 'x.json' }, env: { REPORT_EXPORT_SECRET_ID: 'prod' }, kind: 'file' },
    { flags: { 'secret-id': 'prod' }, env: { REPORT_EXPORT_SECRET_FILE: 'x.json' }, kind: 'secrets-manager' },
  ])('picks the $kind when flags $flags and env $env are given', async ({ flags, env, kind }) => {
    // Act
    const location = secretLocation(await resolveConfig({ flags, env, cwd: tmpdir() }), tmpdir());
    // Assess
    expect(location.kind).toBe(kind);
  });

  it('refuses a secret file and a secret id given at the same layer', async () => {
    // Prepare
    const config = await resolveConfig({
      flags: { 'secret-file': 'x.json', 'secret-id': 'prod' },
      env: {},
      cwd: tmpdir(),
    });
    // Act / Assess
    expect(() => secretLocation(config, tmpdir())).toThrow('both name the secret');
  });
});

describe('parseCommandLine with a repeatable option', () => {
  const COMMAND = defineCommand({
    name: 'demo',
    usage: 'Usage: demo',
    summary: 'demo',
    options: {
      report: { type: 'string', value: '<id>', help: 'a report', multiple: true },
      one: { type: 'string', value: '<v>', help: 'once' },
    },
    examples: ['demo --report a --report b'],
  });

  it('collects every value in order when the option is given several times', () => {
    // Act
    const v = parseCommandLine(COMMAND, ['--report', 'a', '--report=b', '--one', 'x']);
    // Assess
    expect(v.report).toEqual(['a', 'b']);
    expect(v.one).toBe('x');
  });

  it('still refuses a second value of an option that is not repeatable', () => {
    // Act / Assess
    expect(() => parseCommandLine(COMMAND, ['--one', 'x', '--one', 'y'])).toThrow(UsageError);
  });

  it('marks the repeatable option in the help', () => {
    // Act / Assess
    expect(renderHelp(COMMAND)).toContain('--report <id> ...');
  });
});

describe('CONFIG_COMMAND', () => {
  it('takes a flag for every setting but the client secret, in the order settings are declared', () => {
    // Act
    const flags = Object.keys(CONFIG_COMMAND.options);

    // Assess
    const expected = Object.values(CONFIG_KEYS)
      .filter((k) => !('secret' in k))
      .map((k) => k.flag);
    expect(expected).not.toContain('client-secret');
    expect(flags).toEqual([...expected, 'config', 'json', 'help']);
  });
});

describe('report-export config show', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'config-show-'));
    await writeFile(
      join(dir, 'cfg.json'),
      JSON.stringify({ clientSecret: 'file-secret-value', region: 'eu' }),
    );
    await writeFile(
      join(dir, 'login.json'),
      JSON.stringify({
        service: {
          clientId: 'c',
          clientSecret: 'stored-secret',
          refreshToken: 'rt-value',
          accessToken: 'at-value',
        },
      }),
    );
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('prints every value with its source and masks secrets and tokens when --json is given (the built program)', async () => {
    // Act
    const r = await runCli(
      [
        'config',
        'show',
        '--config',
        join(dir, 'cfg.json'),
        '--secret-file',
        join(dir, 'login.json'),
        '--json',
      ],
      { env: { REPORT_EXPORT_CLIENT_ID: 'env-client' }, cleanEnv: true },
    );

    // Assess
    expect(r.code, r.stderr).toBe(0);
    const shown = JSON.parse(r.stdout) as {
      settings: Record<string, { value: string; where: string }>;
      secret: Record<string, string>;
    };
    expect(shown.settings.clientId).toMatchObject({ value: 'env-client', where: 'REPORT_EXPORT_CLIENT_ID' });
    expect(shown.settings.clientSecret?.value).toBe('********');
    expect(shown.settings.baseUrl?.value).toBe('https://api.eu.myreports.cloud/api');
    expect(shown.secret).toMatchObject({ clientId: 'c', refreshToken: '********', accessToken: '********' });
    for (const value of ['file-secret-value', 'stored-secret', 'rt-value', 'at-value'])
      expect(r.stdout).not.toContain(value);
  });

  it('exits 2 naming the subcommand when it is unknown', async () => {
    // Act
    const r = await runInProcess(['config', 'edit'], { cleanEnv: true, cwd: dir });
    // Assess
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown subcommand 'config edit'");
  });
});
