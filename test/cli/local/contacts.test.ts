import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flagOf } from '../../../lib/cli/commands/directory/spec';
import { acquireOutDirLock } from '../../../lib/cli/shared/out-dir-lock';
import { directoryItemsOn } from '../../../lib/simulator/directory-ground-truth';
import type { DirectoryItem } from '../../../lib/spec';
import { runInProcess } from '../../support/cli-in-process';
import type { CliRun } from '../../support/cli-process';

/**
 * Issue 29 through `npm start` (the program's main in this process): three tenants' directories
 * synced beside their calls, a replace and a delete in the local service's kept state between
 * two runs, and `query` of calls_with_contacts checked against a match this test computes
 * apart from the view: the seeded directories (directoryItemsOn) and libphonenumber-js.
 */

const TENANTS = [
  { id: 'london', country: 'GB', zone: 'Europe/London' },
  { id: 'new-york', country: 'US', zone: 'America/New_York' },
  { id: 'sydney', country: 'AU', zone: 'Australia/Sydney' },
] as const;
const PHONE_FIELDS = ['phone1', 'phone2', 'phone3', 'phone4'] as const;

/** The local date now in a zone (the day the sync read the directories). */
const todayIn = (zone: string) => new Intl.DateTimeFormat('en-CA', { timeZone: zone }).format(new Date());

/** A tenant's `Contacts:` line of the report. */
function contactsLine(stdout: string, tenant: string): string {
  const line = stdout.split('\n').find((l) => l.startsWith(`Contacts: ${tenant} `));
  if (line === undefined) throw new Error(`no Contacts line of ${tenant} in:\n${stdout}`);
  return line;
}

describe('npm start with the contact directories (three tenants)', () => {
  let work: string;
  let lake: string;
  let state: string;
  let first: CliRun;
  let second: CliRun;
  /** Each tenant's items as the first run's sync read them (the ground truth), by tenant. */
  const synced = new Map<string, { directoryId: string; items: DirectoryItem[] }[]>();
  let changed: DirectoryItem;
  let gone: DirectoryItem;
  let replaced: CliRun;
  let deleted: CliRun;
  const run = () =>
    runInProcess(
      [
        // The default window, the last days: their calls take numbers from the directories
        // as they are now (months back, many of those contacts have changed or gone).
        '--rows-per-day',
        '40',
        '--out',
        lake,
        '--secret-file',
        path.join(state, 'secrets.json'),
      ],
      { cwd: work },
    );

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'start-contacts-'));
    lake = path.join(work, 'lake');
    state = path.join(work, 'state');
    first = await run();
    for (const [index, t] of TENANTS.entries()) {
      const states = await directoryItemsOn({
        tenant: index,
        date: todayIn(t.zone),
        livingDirectories: true,
        dataDir: path.join(state, 'service'),
      });
      synced.set(
        t.id,
        states.map((s) => ({ directoryId: s.directory.id, items: s.items })),
      );
    }
    // Between the runs, no service runs: `directory --tenant london` serves the local service
    // on the deployment's kept state itself, and replaces one item and deletes another of
    // london's first directory there.
    const { directoryId, items } = (synced.get('london') ?? [])[0] as {
      directoryId: string;
      items: DirectoryItem[];
    };
    [changed, gone] = [...items].sort((a, b) => (a.id < b.id ? -1 : 1)) as [DirectoryItem, DirectoryItem];
    const asLondon = ['--tenant', 'london', '--dir', state, '--directory', directoryId];
    const fields = Object.entries({ ...changed.fields, jobTitle: 'Head of Returns' }).flatMap(
      ([name, value]) => [`--${flagOf(name)}`, String(value)],
    );
    replaced = await runInProcess(['directory', 'replace', ...asLondon, '--item', changed.id, ...fields], {
      cwd: work,
    });
    deleted = await runInProcess(['directory', 'delete', ...asLondon, '--item', gone.id], { cwd: work });
    second = await run();
  }, 600_000);

  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it.each(TENANTS)(
    'prints the directories, items and versions of tenant $id synced beside its calls',
    ({ id }) => {
      // Assess
      expect(first.code).toBe(0);
      const items = (synced.get(id) ?? []).reduce((n, d) => n + d.items.length, 0);
      const directories = synced.get(id)?.length ?? 0;
      expect(items).toBeGreaterThan(0);
      const line = contactsLine(first.stdout, id);
      expect(line).toContain(
        `${directories} directories, ${items} items (synced); this run wrote ${items} new version(s), closed 0, 0 deletion(s)`,
      );
      // A realistic share of the external calls comes from a contact's number.
      const share = Number(/; ([\d.]+) % of \d+ external calls matched a contact/.exec(line)?.[1]);
      expect(share).toBeGreaterThanOrEqual(40);
      expect(share).toBeLessThanOrEqual(70);
    },
  );

  it('replaces and deletes items of a tenant with no service running, serving its kept state', () => {
    // Assess
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(replaced.stderr).toContain(
      `the local service is not running: serving its kept state ${path.join(state, 'service')}`,
    );
    expect(replaced.stdout).toContain('Head of Returns');
    expect(deleted.stdout).toContain(gone.id);
  });

  it('refuses a directory command naming the holder while another process holds the kept state and no service answers', async () => {
    // Prepare: the kept state held, as a second directory command (or an npm start starting) holds it.
    const held = await acquireOutDirLock(path.join(state, 'service'));

    // Act
    let search: CliRun;
    try {
      search = await runInProcess(
        [
          'directory',
          'search',
          '--tenant',
          'london',
          '--dir',
          state,
          '--directory',
          'Company contacts',
          '--text',
          'a',
        ],
        { cwd: work },
      );
    } finally {
      await held.release();
    }

    // Assess
    expect(search.code).toBe(1);
    expect(search.stderr).toContain(`another report-export is writing ${path.join(state, 'service')}`);
  });

  it('prints the history a replace and a delete make, and no change of the other tenants, on the next run', () => {
    // Assess
    expect(second.code).toBe(0);
    // One new version of the replaced item; its old version and the deleted item's closed; one deletion.
    expect(contactsLine(second.stdout, 'london')).toContain(
      'this run wrote 1 new version(s), closed 2, 1 deletion(s)',
    );
    expect(contactsLine(second.stdout, 'new-york')).toContain('(unchanged); no change since the last sync');
    expect(contactsLine(second.stdout, 'sydney')).toContain('(unchanged); no change since the last sync');
  });

  it('answers query of calls_with_contacts with every call once and the contact computed from the directories', async () => {
    // Act
    const answer = await runInProcess(
      [
        'query',
        '--dir',
        lake,
        '--format',
        'json',
        'SELECT tenant, report_id, conn_id, cli, user_num, match_quality, other_candidates, contact_item_id FROM calls_with_contacts',
      ],
      { cwd: work },
    );
    const calls = await runInProcess(
      ['query', '--dir', lake, '--format', 'json', 'SELECT count(*)::INTEGER AS n FROM calls'],
      { cwd: work },
    );

    // Assess
    expect(answer.code).toBe(0);
    const rows = JSON.parse(answer.stdout) as Record<string, string | number | null>[];
    expect(rows.length).toBe((JSON.parse(calls.stdout) as { n: number }[])[0]?.n);
    expect(new Set(rows.map((r) => `${r.tenant}|${r.report_id}|${r.conn_id}`)).size).toBe(rows.length);
    let external = 0;
    let matched = 0;
    for (const row of rows) {
      const tenant = TENANTS.find((t) => t.id === row.tenant) as (typeof TENANTS)[number];
      const expected = expectedContact(row, tenant.country, synced.get(tenant.id) ?? []);
      expect({ conn: row.conn_id, item: row.contact_item_id, others: Number(row.other_candidates) }).toEqual({
        conn: row.conn_id,
        item: expected.item,
        others: expected.others,
      });
      if (expected.external) external++;
      if (expected.item !== null) matched++;
    }
    // The expected contacts are the first sync's items, the deleted one included: calls
    // before the first sync meet each item's first version, and a later change closes it
    // only from then on.
    expect(matched / external).toBeGreaterThan(0.4);
  });
});

/**
 * The contact a call should get, computed apart from the view: the call's external number
 * (`cli`, unless it is the user's own number) read to E.164 by libphonenumber-js in the
 * tenant's country, and the items any of whose phones is that number; the first by
 * (directory id, item id), the others counted.
 */
function expectedContact(
  call: Record<string, string | number | null>,
  country: 'GB' | 'US' | 'AU',
  directories: readonly { directoryId: string; items: DirectoryItem[] }[],
): { item: string | null; others: number; external: boolean } {
  const cli = call.cli === null ? null : String(call.cli);
  if (cli === null || cli === call.user_num) return { item: null, others: 0, external: false };
  const e164 = parsePhoneNumberFromString(cli, country)?.number;
  if (e164 === undefined) return { item: null, others: 0, external: false };
  const candidates = directories
    .flatMap((d) =>
      d.items
        .filter((i) =>
          PHONE_FIELDS.some((f) => {
            const phone = (i.fields as Record<string, unknown>)[f];
            return typeof phone === 'string' && phone === e164;
          }),
        )
        .map((i) => `${d.directoryId}\u0000${i.id}`),
    )
    .sort();
  const [firstCandidate] = candidates;
  return {
    item: firstCandidate === undefined ? null : (firstCandidate.split('\u0000')[1] as string),
    others: Math.max(0, candidates.length - 1),
    external: true,
  };
}
