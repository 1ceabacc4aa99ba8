import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directoryCommand } from '../../../lib/cli/commands/directory/command';
import { DIRECTORY_CLI_ERROR_CODES } from '../../../lib/cli/commands/directory/errors';
import { DIRECTORY_COMMAND } from '../../../lib/cli/commands/directory/spec';
import type { IOStreams } from '../../../lib/cli/shared/io-streams';
import { exitCodeOf } from '../../../lib/command-line/options';
import type { DirectoryItem } from '../../../lib/spec/types';
import { annLee } from './fixtures';
import { type DirectoryHarness, startDirectoryHarness } from './harness';

/**
 * The `directory` subcommands called in this process (the subprocess tests cover the
 * binary's wiring and exit statuses; these cover every subcommand and error quickly).
 */

const SUBCOMMANDS = ['search', 'get', 'get-by-crm', 'create', 'replace', 'delete', 'delete-by-crm', 'sync'];
const GUID = 'c0000000-0000-4000-8000-000000000001';

interface Outcome {
  code: number;
  stdout: string;
  error?: Error & { code?: string };
}

/**
 * Runs `directory <argv>` here on streams of its own, stdout captured (stderr too, so
 * progress stays quiet), with no variable of this process; the files it reads are named by absolute paths.
 */
async function directory(argv: readonly string[]): Promise<Outcome> {
  let stdout = '';
  const io: IOStreams = {
    stdin: Object.assign(Readable.from([]), { isTTY: false }),
    stdout: {
      write: (chunk: string) => {
        stdout += chunk;
        return true;
      },
    },
    stderr: { write: () => true },
    env: { NO_COLOR: '1' },
    cwd: os.tmpdir(),
  };
  try {
    return { code: await directoryCommand(argv, io), stdout };
  } catch (error) {
    return { code: exitCodeOf(error), stdout, error: error as NonNullable<Outcome['error']> };
  }
}

describe('directoryCommand (usage)', () => {
  it.each(SUBCOMMANDS)(
    'prints help with its usage and an example and returns 0 when %s gets --help',
    async (sub) => {
      // Act
      const run = await directory([sub, '--help']);

      // Assess
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`Usage: report-export directory ${sub} `);
      expect(run.stdout).toMatch(new RegExp(`Examples:\\n {2}report-export directory ${sub} `));
    },
  );

  it('prints the command help listing every subcommand when no subcommand is given', async () => {
    const run = await directory([]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(DIRECTORY_COMMAND.usage);
    for (const sub of SUBCOMMANDS) expect(run.stdout).toMatch(new RegExp(`^  ${sub} `, 'm'));
  });

  it.each([
    [['bogus'], /unknown subcommand 'directory bogus'/],
    [['get', '--directory', 'X'], /--item is required/],
    [['get', '--directory', 'X', '--item', 'not-a-guid'], /--item must be a GUID .*got 'not-a-guid'/],
    [['get-by-crm', '--directory', 'X'], /--crm-id is required/],
    [['get-by-crm', '--directory', 'X', '--crm-id', '42'], /--crm-id must be a GUID/],
    [['delete', '--directory', 'X'], /--item is required/],
    [['delete-by-crm', '--directory', 'X'], /--crm-id is required/],
    [['search', '--directory', 'X'], /--text is required/],
    [['search', '--directory', 'X', '--text', ''], /--text must not be empty/],
    [
      ['search', '--directory', 'X', '--text', 'a', '--fields', 'fullName,nickname'],
      /--fields: unknown field 'nickname'/,
    ],
    [['search', '--text', 'a', '--colour'], /unknown option '--colour'/],
    [['create', '--directory', 'X'], /give at least one field option/],
    [['replace', '--directory', 'X', '--full-name', 'A'], /--item is required/],
    [['replace', '--directory', 'X', '--item', GUID], /give at least one field option/],
    [['sync', '--directory', 'X'], /--csv is required/],
    [
      ['sync', '--csv', 'c.csv', '--concurrency', '0'],
      /--concurrency must be an integer from 1 to 16, got '0'/,
    ],
    [
      ['sync', '--csv', 'c.csv', '--default-region', 'XX'],
      /--default-region must be an ISO 3166 country code .*got 'XX'/,
    ],
    [['sync', '--csv', 'c.csv', '--dry-run=yes'], /--dry-run takes no value/],
    [['sync', '--csv', 'c.csv', '--csv', 'd.csv'], /--csv is given more than once/],
    [['delete', '--directory', 'X', '--item', GUID, 'extra'], /unexpected argument 'extra'/],
  ])('fails as a usage error (exit 2) naming the flag when argv is %j', async (argv, message) => {
    // Act
    const run = await directory(argv);

    // Assess
    expect(run.code).toBe(2);
    expect(run.error?.message).toMatch(message);
    expect(run.error?.code).toBe('CLI_USAGE');
    expect(run.stdout).toBe('');
  });

  it('fails before any request (exit 1) naming the file when the CSV cannot be read', async () => {
    const run = await directory(['sync', '--directory', 'X', '--csv', '/nonexistent/contacts.csv']);
    expect(run.code).toBe(1);
    expect(run.error?.code).toBe(DIRECTORY_CLI_ERROR_CODES.csvUnreadable);
    expect(run.error?.message).toContain('/nonexistent/contacts.csv');
  });
});

describe('directoryCommand (local service)', () => {
  let h: DirectoryHarness;
  const d = () => ['--directory', 'Company contacts', '--secret-file', h.secretFile];

  beforeAll(async () => {
    h = await startDirectoryHarness();
  });

  afterAll(async () => {
    await h?.close();
  });

  it('creates, reads by id and by crmId, replaces and deletes by crmId an item, each answering JSON', async () => {
    // Act
    const created = await directory(['create', ...d(), '--json', ...annLee(GUID).options]);
    const item = JSON.parse(created.stdout) as DirectoryItem;
    const got = await directory(['get', ...d(), '--json', '--item', item.id]);
    const byCrm = await directory(['get-by-crm', ...d(), '--json', '--crm-id', GUID]);
    const replaced = await directory([
      'replace',
      ...d(),
      '--json',
      '--item',
      item.id,
      '--full-name',
      'Ann Leigh',
      '--crm-id',
      GUID,
    ]);
    const deleted = await directory(['delete-by-crm', ...d(), '--json', '--crm-id', GUID]);
    const gone = await directory(['get', ...d(), '--json', '--item', item.id]);

    // Assess
    expect(created.code).toBe(0);
    expect(item.fields).toEqual(annLee(GUID).fields);
    expect(JSON.parse(got.stdout)).toEqual(item);
    expect(JSON.parse(byCrm.stdout)).toEqual([item]);
    expect(replaced.code).toBe(0);
    expect((JSON.parse(replaced.stdout) as DirectoryItem).fields).toEqual({
      fullName: 'Ann Leigh',
      crmId: GUID,
    });
    expect((JSON.parse(deleted.stdout) as DirectoryItem).id).toBe(item.id);
    expect(gone.code).toBe(1);
    expect(gone.error?.code).toBe('API_NOT_FOUND');
  });

  it('prints an item as name and value lines without --json when an item is deleted by id', async () => {
    // Prepare
    const { id } = JSON.parse(
      (await directory(['create', ...d(), '--json', '--full-name', 'Temp'])).stdout,
    ) as DirectoryItem;

    // Act
    const deleted = await directory(['delete', ...d(), '--item', id]);

    // Assess
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toBe(`id        ${id}\nfullName  Temp\n`);
  });

  it('shows only the fields asked for, and an empty JSON list when nothing matches', async () => {
    // Act
    const some = await directory(['search', ...d(), '--text', 'Webb', '--fields', 'fullName,phone3']);
    const none = await directory(['search', ...d(), '--text', 'zzz-nobody', '--json']);

    // Assess
    expect(some.stdout.split('\n')[0]).toMatch(/^id\s+fullName\s+phone3$/);
    expect(some.stdout).toContain('Marcus Webb');
    expect(some.stdout).toContain('+447700900321');
    expect(JSON.parse(none.stdout)).toEqual([]);
  });

  it.each([
    [['create', '--phone1', '12'], /^--phone1: '12' is not a valid phone number/],
    [['create', '--full-name', 'A', '--crm-id', 'CRM-1'], /^--crm-id: must be a GUID/],
  ])(
    'fails as a usage error naming the flag when a field value is refused before sending (%j)',
    async (argv, message) => {
      // Act
      const [sub, ...rest] = argv;
      const run = await directory([sub as string, ...d(), ...rest]);

      // Assess
      expect(run.code).toBe(2);
      expect(run.error?.message).toMatch(message);
    },
  );

  it('fails naming the directory when an id matches no directory', async () => {
    const run = await directory(['get', '--directory', GUID, '--secret-file', h.secretFile, '--item', GUID]);
    expect(run.code).toBe(1);
    expect(run.error?.code).toBe(DIRECTORY_CLI_ERROR_CODES.directoryNotFound);
    expect(run.error?.message).toBe(`no directory has id ${GUID}`);
  });

  it('fails before any write naming the columns when the directory has no such field', async () => {
    // Prepare
    const file = path.join(h.dir, 'suppliers.csv');
    await fs.writeFile(file, 'crmId,fullName,jobTitle\nc0000000-0000-4000-8000-000000000009,Desk,Buyer\n');

    // Act
    const run = await directory([
      'sync',
      '--directory',
      'Suppliers',
      '--secret-file',
      h.secretFile,
      '--csv',
      file,
    ]);

    // Assess
    expect(run.code).toBe(1);
    expect(run.error?.code).toBe(DIRECTORY_CLI_ERROR_CODES.columnNotInDirectory);
    expect(run.error?.message).toMatch(/^directory 'Suppliers' has no field jobTitle/);
  });
});
