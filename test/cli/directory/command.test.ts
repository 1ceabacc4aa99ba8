import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIRECTORY_CLI_ERROR_CODES } from '../../../lib/cli/commands/directory/errors';
import { createSeed, DEFAULT_SEED } from '../../../lib/simulator/seed';
import type { DirectoryItem } from '../../../lib/spec/types';
import { runInProcess } from '../../support/cli-in-process';
import { writeLoginSecret } from '../login/login-secret';
import { annLee } from './fixtures';
import { type DirectoryHarness, runDirectory, runDirectoryProcess, startDirectoryHarness } from './harness';

const SUBCOMMANDS = ['search', 'get', 'get-by-crm', 'create', 'replace', 'delete', 'delete-by-crm', 'sync'];
const GUID = 'b0000000-0000-4000-8000-000000000001';
const seed = createSeed(DEFAULT_SEED);

describe('report-export directory (subprocess)', () => {
  it('prints help listing every subcommand, and help with an example for a subcommand, and exits 0', async () => {
    // Act
    const [top, sync] = await Promise.all([
      runDirectoryProcess(['--help']),
      runDirectoryProcess(['sync', '--help']),
    ]);

    // Assess
    expect(top.code).toBe(0);
    for (const sub of SUBCOMMANDS) expect(top.stdout).toMatch(new RegExp(`^  ${sub} `, 'm'));
    expect(sync.code).toBe(0);
    expect(sync.stdout).toContain('Usage: report-export directory sync ');
    expect(sync.stdout).toMatch(/Examples:\n {2}report-export directory sync /);
    expect(sync.stderr).toBe('');
  });
});

describe('report-export directory (usage)', () => {
  it('exits 2 with an error naming the subcommand or the flag when the command line is wrong', async () => {
    // Act
    const [bogus, badItem] = await Promise.all([
      runDirectory(['bogus']),
      runDirectory(['get', '--directory', 'X', '--item', 'not-a-guid']),
    ]);

    // Assess
    expect(bogus.code).toBe(2);
    expect(bogus.stderr).toMatch(
      /unknown subcommand 'directory bogus'; subcommands: search, get.* \[CLI_USAGE\]/,
    );
    expect(badItem.code).toBe(2);
    expect(badItem.stderr).toMatch(/--item must be a GUID .*got 'not-a-guid'/);
    expect(badItem.stdout).toBe('');
  });
});

describe('report-export directory (local service)', () => {
  let h: DirectoryHarness;
  const contacts = seed.directories[0];

  beforeAll(async () => {
    h = await startDirectoryHarness();
  });

  afterAll(async () => {
    await h?.close();
  });

  it('exits 1 with the code of the failure when the login is missing or no directory has the name', async () => {
    // Act
    const [noLogin, noDirectory] = await Promise.all([
      runDirectory(
        [
          'get',
          '--directory',
          'Company contacts',
          '--item',
          GUID,
          '--secret-file',
          path.join(h.dir, 'none.json'),
        ],
        {},
        h.dir,
      ),
      h.directory(['search', '--directory', 'Nope', '--text', 'a']),
    ]);

    // Assess
    expect(noLogin.code).toBe(1);
    expect(noLogin.stderr).toContain('none.json does not exist');
    expect(noLogin.stderr).toContain(`[${DIRECTORY_CLI_ERROR_CODES.credentialsMissing}]`);
    expect(noDirectory.code).toBe(1);
    expect(noDirectory.stderr).toContain("no directory is named 'Nope'; directories: 'Company contacts'");
    expect(noDirectory.stderr).toContain(`[${DIRECTORY_CLI_ERROR_CODES.directoryNotFound}]`);
  });

  it('searches with the secret file (a table) or with REPORT_EXPORT_ACCESS_TOKEN and --base-url (JSON that parses)', async () => {
    // Prepare
    const secret = JSON.parse(await fs.readFile(h.secretFile, 'utf8')) as {
      service: { accessToken: string };
    };

    // Act
    const [table, json] = await Promise.all([
      h.directory(['search', '--directory', 'company contacts', '--text', '07700 900123']),
      runDirectory(
        [
          'search',
          '--directory',
          contacts?.directory.id ?? '',
          '--text',
          'Hart',
          '--json',
          '--base-url',
          h.sim.baseUrl,
        ],
        {
          REPORT_EXPORT_ACCESS_TOKEN: secret.service.accessToken,
        },
        h.dir,
      ),
    ]);

    // Assess
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^id\s+crmId\s+fullName\s+companyName\s+phone1\s+email\n-+/);
    expect(table.stdout).toContain('Amelia Hart');
    expect(table.stdout).toContain('+447700900123');
    expect(json.code).toBe(0);
    expect((JSON.parse(json.stdout) as DirectoryItem[]).map((i) => i.fields.fullName)).toEqual([
      'Amelia Hart',
    ]);
  });

  it('searches as a tenant of the local deployment with its stored login, refreshed through --auth-url, and names an unknown one', async () => {
    // Prepare: acme registered (tenants add) and signed in where tenants login stores it; its
    // stored login names an authorization server that is gone and an expired access token.
    const added = await runInProcess(
      [
        'tenants',
        'add',
        'acme',
        '--name',
        'Acme',
        '--region',
        'local',
        '--time-zone',
        h.sim.timeZoneId,
        '--workspace',
        h.sim.workspaceId,
        '--reports',
        'r-1',
        '--hour',
        '2',
        '--look-back',
        '0',
      ],
      { cwd: h.dir },
    );
    expect(added.code, added.stderr).toBe(0);
    const login = path.join(h.dir, '.report-export', 'secrets', 'acme.json');
    await writeLoginSecret(h.sim, login);
    const { service } = JSON.parse(await fs.readFile(login, 'utf8'));
    await fs.writeFile(
      login,
      JSON.stringify({
        service: { ...service, authUrl: 'http://127.0.0.1:9/gone', accessTokenExpiresAt: 0 },
      }),
      { mode: 0o600 },
    );
    const search = ['search', '--directory', 'company contacts', '--text', 'Hart', '--json'];

    // Act
    const r = await runDirectory([...search, '--tenant', 'acme', '--auth-url', h.sim.authUrl], {}, h.dir);
    const unknown = await runDirectory([...search, '--tenant', 'acne'], {}, h.dir);

    // Assess
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as DirectoryItem[]).map((i) => i.fields.fullName)).toEqual(['Amelia Hart']);
    expect(JSON.parse(await fs.readFile(login, 'utf8')).service.accessTokenExpiresAt).toBeGreaterThan(
      Date.now(),
    );
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("--tenant 'acne' is not a tenant of the local deployment");
    expect(unknown.stderr).toContain('its tenants: acme');
  });

  it('creates an item and reads it back, both answering JSON that parses', async () => {
    const d = ['--directory', 'Company contacts', '--json'];
    // Act
    const created = await h.directory(['create', ...d, ...annLee(GUID).options]);
    const item = JSON.parse(created.stdout) as DirectoryItem;
    const got = await h.directory(['get', ...d, '--item', item.id]);

    // Assess
    expect(created.code).toBe(0);
    expect(item.fields).toEqual(annLee(GUID).fields);
    expect(got.code).toBe(0);
    expect(JSON.parse(got.stdout)).toEqual(item);
  });
});
