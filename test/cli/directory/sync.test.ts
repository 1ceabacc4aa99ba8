import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API_ERROR_CODES, createClient, type FetchLike, type ServiceClient } from '../../../lib/api';
import { parseContacts } from '../../../lib/cli/commands/directory/contacts';
import { type SyncReport, syncDirectory } from '../../../lib/cli/commands/directory/sync';
import { loginWithAutoApproval } from '../../../lib/local/auto-approve-login';
import { type RunningSimulator, startSimulator } from '../../../lib/simulator';
import type { DirectoryItem } from '../../../lib/spec/types';
import { amelia, BAD_ROWS, CSV, contacts, NEW, tomas } from './fixtures';

let sim: RunningSimulator;
let accessToken: string;

// A fresh service per test: the directory starts as seeded.
beforeEach(async () => {
  sim = await startSimulator({ autoApprove: true });
  const { authUrl, clientId, clientSecret, redirectUri } = sim;
  accessToken = (await loginWithAutoApproval({ authUrl, clientId, clientSecret, redirectUri })).accessToken;
});

afterEach(async () => {
  await sim?.close();
});

/** A client whose retries do not wait; `fetch` wraps the real one (faults, counting). */
function client(fetch: FetchLike = globalThis.fetch): ServiceClient {
  return createClient({
    baseUrl: sim.baseUrl,
    accessToken,
    fetch,
    retryBaseDelayMs: 1,
    retryMaxDelayMs: 5,
    timeoutMs: 10_000,
  });
}

async function itemsOf(api: ServiceClient, crmId: string): Promise<DirectoryItem[]> {
  return api.directories.getItemsByCrmId(contacts.directory.id, crmId).catch(() => []);
}

const sync = (
  api: ServiceClient,
  extra: Partial<Parameters<typeof syncDirectory>[1]> = {},
): Promise<SyncReport> =>
  syncDirectory(api.directories, {
    directoryId: contacts.directory.id,
    sheet: parseContacts(CSV, 'GB'),
    concurrency: 1,
    ...extra,
  });

const counts = (r: SyncReport) => ({
  created: r.created,
  updated: r.updated,
  unchanged: r.unchanged,
  deleted: r.deleted,
  failed: r.failed,
});

describe('syncDirectory', () => {
  it('creates, updates and keeps rows and lists every bad row with its line when the file mixes good and bad rows', async () => {
    // Prepare
    const api = client();

    // Act
    const report = await sync(api, { concurrency: 3 });

    // Assess
    expect(counts(report)).toEqual({ created: 3, updated: 1, unchanged: 1, deleted: 0, failed: 4 });
    expect(report.failures.map(({ line, code }) => ({ line, code }))).toEqual(BAD_ROWS);
    expect(report.changes.find((c) => c.action === 'update')).toMatchObject({
      line: 3,
      changedFields: ['email', 'jobTitle'],
    });
    const [ann] = await itemsOf(api, NEW[0] as string);
    expect(ann?.fields).toEqual({
      crmId: NEW[0],
      fullName: 'Ann Lee',
      companyName: 'Lee Ltd',
      jobTitle: 'Buyer',
      phone1: '+447700900001',
      email: 'ann@lee.example',
    });
    expect((await itemsOf(api, NEW[1] as string))[0]?.fields.fullName).toBe('Bob "Bobby" Stone');
    expect((await itemsOf(api, NEW[2] as string))[0]?.fields.fullName).toBe('Carol Jones');
    const [ameliaNow] = await itemsOf(api, amelia.fields.crmId as string);
    // A field without a column (title) is kept; an empty cell (email) removes the field.
    expect(ameliaNow?.fields).toEqual({ ...amelia.fields, jobTitle: 'COO', email: undefined });
    expect(await itemsOf(api, 'a0000000-0000-4000-8000-000000000005')).toEqual([]);
  });

  it('changes nothing and reports the same plan when run again after a complete run', async () => {
    // Prepare
    const api = client();
    await sync(api);

    // Act
    const again = await sync(api);

    // Assess
    expect(counts(again)).toEqual({ created: 0, updated: 0, unchanged: 5, deleted: 0, failed: 4 });
    for (const crmId of NEW) expect(await itemsOf(api, crmId)).toHaveLength(1);
  });

  it('plans without writing when dryRun is set', async () => {
    // Prepare
    const api = client();

    // Act
    const report = await sync(api, { dryRun: true });

    // Assess
    expect(counts(report)).toMatchObject({ created: 3, updated: 1, unchanged: 1, failed: 4 });
    expect(report.changes.map((c) => c.action)).toEqual(['create', 'update', 'create', 'create']);
    expect(await itemsOf(api, NEW[0] as string)).toEqual([]);
  });

  it('fails the rows a fault in the middle hits, goes on with the others, and a re-run finishes without duplicates', async () => {
    // Prepare: a 500 on the second create (a POST is not retried: it may have acted) and
    // two 500s on the lookup after it (a GET is retried).
    const api0 = client();
    let creates = 0;
    const faulty: FetchLike = (input, init) => {
      if (init?.method === 'POST' && String(input).endsWith('/items') && ++creates === 2) {
        sim.faults.inject({ route: 'items', kind: 'status', status: 500, times: 1 });
        sim.faults.inject({ route: 'items', kind: 'status', status: 502, times: 2 });
      }
      return globalThis.fetch(input, init);
    };

    // Act
    const first = await sync(client(faulty));
    const second = await sync(client());

    // Assess
    expect(counts(first)).toEqual({ created: 2, updated: 1, unchanged: 1, deleted: 0, failed: 5 });
    expect(first.failures.find((f) => f.line === 5)).toMatchObject({ code: API_ERROR_CODES.server });
    expect(counts(second)).toEqual({ created: 1, updated: 0, unchanged: 4, deleted: 0, failed: 4 });
    for (const crmId of NEW) expect(await itemsOf(api0, crmId)).toHaveLength(1);
  });

  it('counts a create whose answer was lost as created and creates no duplicate when the POST reached the service', async () => {
    // Prepare: the service creates the item, then the connection drops before the answer.
    const api0 = client();
    let creates = 0;
    const lossy: FetchLike = async (input, init) => {
      const response = await globalThis.fetch(input, init);
      if (init?.method === 'POST' && ++creates === 1) {
        await response.body?.cancel();
        throw new TypeError('fetch failed', {
          cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
        });
      }
      return response;
    };

    // Act
    const report = await sync(client(lossy));

    // Assess
    expect(counts(report)).toEqual({ created: 3, updated: 1, unchanged: 1, deleted: 0, failed: 4 });
    expect(await itemsOf(api0, NEW[0] as string)).toHaveLength(1);
  });

  it('never has more rows in flight than the concurrency when it is 3', async () => {
    // Prepare
    let inFlight = 0;
    let most = 0;
    const counting: FetchLike = async (input, init) => {
      most = Math.max(most, ++inFlight);
      try {
        return await globalThis.fetch(input, init);
      } finally {
        inFlight--;
      }
    };

    // Act
    await sync(client(counting), { concurrency: 3 });

    // Assess
    expect(most).toBeLessThanOrEqual(3);
    expect(most).toBeGreaterThan(1);
  });

  it('deletes items whose crmId the file does not name, and keeps those of bad rows, when deleteMissing is set', async () => {
    // Prepare
    const api = client();
    const sheet = parseContacts(
      CSV.split('\r\n')
        .filter((_l, i) => i !== 6 && i !== 7)
        .join('\n'),
      'GB',
    );

    // Act
    const report = await syncDirectory(api.directories, {
      directoryId: contacts.directory.id,
      sheet,
      deleteMissing: true,
    });

    // Assess: 8 seeded contacts, 2 of them in the file.
    expect(report.deletionsSkipped).toBeUndefined();
    expect(report.deleted).toBe(6);
    const left = await api.directories.searchItems(contacts.directory.id, '');
    expect(left.map((i) => i.fields.crmId).sort()).toEqual(
      [amelia.fields.crmId, tomas.fields.crmId, ...NEW].sort(),
    );
  });

  it('deletes nothing and says why when deleteMissing is set but a row could not be read', async () => {
    // Act
    const report = await sync(client(), { deleteMissing: true });

    // Assess
    expect(report.deleted).toBe(0);
    expect(report.deletionsSkipped).toMatch(/^2 row\(s\) of the file could not be read/);
    expect(await client().directories.searchItems(contacts.directory.id, '')).toHaveLength(8 + 3);
  });

  it('stops at the first row instead of failing each one when the service refuses the token', async () => {
    // Prepare
    const refused = createClient({ baseUrl: sim.baseUrl, accessToken: 'not-a-token', retryBaseDelayMs: 1 });

    // Act
    const report = await sync(refused);

    // Assess
    expect(report.stopped?.code).toBe(API_ERROR_CODES.unauthorized);
    expect(report.failed).toBe(BAD_ROWS.length);
    expect(report.created + report.updated + report.unchanged).toBe(0);
  });

  it('stops with the interrupted code when the signal aborts mid-run', async () => {
    // Prepare
    const stop = new AbortController();
    const api = client();

    // Act
    const report = await sync(api, {
      signal: stop.signal,
      onProgress: (_r, done) => {
        if (done === 2) stop.abort();
      },
    });

    // Assess
    expect(report.stopped?.code).toBe('CLI_SYNC_INTERRUPTED');
    expect(report.created + report.updated + report.unchanged).toBe(2);
  });
});
