import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient, type ServiceClient } from '../../../lib/api';
import type { SyncReport } from '../../../lib/cli/commands/directory/sync';
import type { DirectoryItem } from '../../../lib/spec/types';
import type { CliProcess } from '../../support/cli-process';
import { amelia, BAD_ROWS, CSV, contacts, NEW } from './fixtures';
import { type DirectoryHarness, startDirectoryHarness } from './harness';

/**
 * `report-export directory sync` against the local service: run in this process, and as the
 * built program in a process of its own where the process is the point (killed, SIGINT).
 */

let h: DirectoryHarness;
let api: ServiceClient;
let cli: CliProcess | undefined;

beforeEach(async () => {
  h = await startDirectoryHarness();
  const secret = JSON.parse(await fs.readFile(h.secretFile, 'utf8')) as { service: { accessToken: string } };
  api = createClient({ baseUrl: h.sim.baseUrl, accessToken: secret.service.accessToken });
});

afterEach(async () => {
  const stopped = cli === undefined ? true : await cli.stop();
  cli = undefined;
  await h?.close();
  // Nothing a test started may outlive it.
  expect(stopped).toBe(true);
});

async function writeCsv(name: string, text: string): Promise<string> {
  const file = path.join(h.dir, name);
  await fs.writeFile(file, text, 'utf8');
  return file;
}

const itemsWith = (crmId: string): Promise<DirectoryItem[]> =>
  api.directories.getItemsByCrmId(contacts.directory.id, crmId).catch(() => []);

const counts = (r: SyncReport) => [r.created, r.updated, r.unchanged, r.deleted, r.failed];

/** `directory sync` of `file` into the contacts directory, by name. */
const syncArgs = (file: string, ...more: string[]): string[] => [
  'sync',
  '--directory',
  'Company contacts',
  '--csv',
  file,
  ...more,
];

/** `count` crmIds no fixture has: GUIDs starting with `prefix` (8 hex digits). */
const newCrmIds = (prefix: string, count: number): string[] =>
  Array.from({ length: count }, (_, i) => `${prefix}-0000-4000-8000-${String(i).padStart(12, '0')}`);

/** The highest `<done>/<total>:` progress line on stderr so far (0 before the first). */
const progress = (stderr: string, total: number): number =>
  Math.max(0, ...[...stderr.matchAll(new RegExp(`^(\\d+)/${total}:`, 'gm'))].map((m) => Number(m[1])));

describe('report-export directory sync', () => {
  it('prints the plan and every bad row with its line, changes nothing and exits 1 when --dry-run meets bad rows', async () => {
    // Prepare
    const file = await writeCsv('contacts.csv', `\uFEFF${CSV}`);

    // Act
    const run = await h.directory(syncArgs(file, '--dry-run'));

    // Assess
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(new RegExp(`^Plan:\\n {2}create {2}line 2 {2}${NEW[0]} {2}Ann Lee\\n`));
    expect(run.stdout).toContain(
      `  update  line 3  ${amelia.fields.crmId}  Amelia Hart  (email, jobTitle)\n`,
    );
    expect(run.stdout).toContain(
      'Dry run (nothing changed): would create 3, update 1, delete 0; 1 unchanged; 4 failed.',
    );
    expect(run.stdout).toContain(
      `  line 6: crmId ${NEW[0]} is also on line 2; only the first is applied [CLI_SYNC_CRM_ID_DUPLICATE]`,
    );
    expect(run.stdout).toContain(
      '  line 7: a quoted field is never closed (unterminated quote) [CLI_CSV_UNTERMINATED_QUOTE]',
    );
    expect(run.stdout).toContain('  line 8: 5 fields, the header has 6 [CLI_CSV_COLUMN_COUNT]');
    expect(run.stdout).toMatch(/ {2}line 9: phone1 '12' is not a phone number.* \[CLI_SYNC_PHONE_INVALID\]/);
    // Progress goes to stderr, plain lines when it is not a terminal.
    expect(run.stderr).toContain("contacts.csv: 9 rows (4 bad) -> directory 'Company contacts' (dry run)");
    expect(run.stderr).toMatch(/^5\/5: 3 created, 1 updated, 1 unchanged, 0 deleted, 4 failed$/m);
    expect(await itemsWith(NEW[0] as string)).toEqual([]);
  });

  it('applies the good rows, reports JSON that parses, and changes nothing when run again', async () => {
    // Prepare
    const file = await writeCsv('contacts.csv', CSV);
    const args = ['sync', '--directory', contacts.directory.id, '--csv', file, '--json'];

    // Act
    const first = await h.directory(args);
    const second = await h.directory(args);

    // Assess
    const report = JSON.parse(first.stdout) as SyncReport & { directory: { name: string } };
    expect(first.code).toBe(1);
    expect(report.directory.name).toBe('Company contacts');
    expect(counts(report)).toEqual([3, 1, 1, 0, 4]);
    expect(report.failures.map(({ line, code }) => ({ line, code }))).toEqual(BAD_ROWS);
    for (const crmId of NEW) expect(await itemsWith(crmId)).toHaveLength(1);
    expect((await itemsWith(amelia.fields.crmId as string))[0]?.fields.jobTitle).toBe('COO');
    expect(counts(JSON.parse(second.stdout) as SyncReport)).toEqual([0, 0, 5, 0, 4]);
  });

  it('finishes the job without duplicates when run again after being killed in the middle', async () => {
    // Prepare: 30 new contacts; every items call slowed so the kill lands mid-run.
    const crmIds = newCrmIds('d0000000', 30);
    const file = await writeCsv(
      'many.csv',
      [
        'crmId,fullName,phone1',
        ...crmIds.map((id, i) => `${id},Person ${i},07700 900${String(i).padStart(3, '0')}`),
      ].join('\n'),
    );
    h.sim.faults.inject({ route: 'items', kind: 'latency', ms: 60, times: 1000 });
    const running = h.startDirectory(syncArgs(file, '--concurrency', '2'));
    cli = running;
    await running.until(() => progress(running.stderr(), 30) >= 6);

    // Act
    await running.stop();
    h.sim.faults.clear();
    const rerun = await h.directory(syncArgs(file, '--json'));

    // Assess
    const report = JSON.parse(rerun.stdout) as SyncReport;
    expect(rerun.code).toBe(0);
    expect(report.failed).toBe(0);
    expect(report.unchanged).toBeGreaterThanOrEqual(6);
    expect(report.created).toBeGreaterThan(0);
    expect(report.created + report.unchanged).toBe(30);
    const stored = await api.directories.searchItems(contacts.directory.id, 'd0000000-0000-4000-8000', {
      fields: ['crmId'],
    });
    expect(stored.map((i) => i.fields.crmId).sort()).toEqual(crmIds);
  });

  it('prints the counts so far and how to finish, and exits 1, when interrupted with SIGINT', async () => {
    // Prepare
    const crmIds = newCrmIds('e0000000', 20);
    const file = await writeCsv(
      'some.csv',
      ['crmId,fullName', ...crmIds.map((id, i) => `${id},Person ${i}`)].join('\n'),
    );
    h.sim.faults.inject({ route: 'items', kind: 'latency', ms: 60, times: 1000 });
    const running = h.startDirectory(syncArgs(file));
    cli = running;
    await running.until(() => progress(running.stderr(), 20) >= 2);

    // Act
    running.child.kill('SIGINT');
    const code = await running.exited;
    const stdout = running.stdout();

    // Assess
    expect(code).toBe(1);
    expect(stdout).toContain('Stopped before the end: interrupted [CLI_SYNC_INTERRUPTED].');
    expect(stdout).toContain('Run the same command again to finish');
    expect(stdout).toMatch(/^Created \d+, updated 0, unchanged 0, deleted 0, 0 failed\.$/m);
  });
});
