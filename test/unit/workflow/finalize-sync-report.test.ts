import * as fs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalDirectoryStore, listAll, type ObjectStore, readObject } from '../../../lib/stores';
import { type DirectorySyncReport, directorySyncReportKey } from '../../../lib/workflow/directory-sync-task';
import { finalizeRun } from '../../../lib/workflow/finalize';
import type { FinalizeInput, RunRecord } from '../../../lib/workflow/run-record';

const PREFIX = 'lake';
const RUN_ID = 'nightly-2026-11-19';

let dir: string;
let store: LocalDirectoryStore;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(tmpdir(), 'finalize-sync-report-'));
  store = new LocalDirectoryStore(dir);
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const metrics = { add: () => undefined, flush: () => undefined };

/** A contacts-only execution whose branch synced one directory and wrote its report at `report`. */
function input(report: string | null): FinalizeInput {
  return {
    input: { contacts: 'only' },
    executionName: RUN_ID,
    startedAt: '2026-11-19T02:00:00.000Z',
    plan: {
      runId: RUN_ID,
      mode: 'contacts',
      timeZone: 'UTC',
      dates: { from: '2026-11-19', to: '2026-11-19' },
      jobCount: 0,
      hasContinuation: false,
      tenant: null,
    },
    results: [],
    contacts: {
      status: 'SYNCED',
      report,
      directories: 1,
      unchanged: 0,
      staged: 1,
      committed: 0,
      held: 0,
      failed: 0,
      newVersions: 3,
      closedVersions: 0,
      deletions: 0,
    },
  };
}

const REPORT: DirectorySyncReport = {
  version: 1,
  runId: RUN_ID,
  tenant: null,
  outcomes: [
    {
      directoryId: '3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b',
      directoryName: 'Customers',
      status: 'committed',
      items: 3,
      newVersions: 3,
      closedVersions: 0,
      deletions: 0,
      phones: 2,
    },
  ],
};

async function recordAt(key: string): Promise<RunRecord> {
  return JSON.parse(Buffer.from(await readObject(store, key)).toString('utf8')) as RunRecord;
}

describe('finalizeRun and the directory sync report', () => {
  it('records the directories and deletes the report when the report was read', async () => {
    // Prepare
    const key = directorySyncReportKey(PREFIX, undefined, RUN_ID);
    await store.put(key, JSON.stringify(REPORT));

    // Act
    const out = await finalizeRun(input(key), { store, prefix: PREFIX, metrics });

    // Assess
    expect((await recordAt(out.runRecordKey)).contacts.directories).toEqual(REPORT.outcomes);
    expect(out.contacts).toEqual({ status: 'synced', directories: 1, failed: 0, held: 0 });
    expect(await listAll(store, `${PREFIX}/_staging/`)).toEqual([]);
  });

  it('leaves the report in place when it cannot be read, and records the outcomes as unknown', async () => {
    // Prepare: a report this version does not read.
    const key = directorySyncReportKey(PREFIX, undefined, RUN_ID);
    await store.put(key, JSON.stringify({ ...REPORT, version: 2 }));

    // Act
    const out = await finalizeRun(input(key), { store, prefix: PREFIX, metrics });

    // Assess
    expect((await recordAt(out.runRecordKey)).contacts.directories).toEqual([]);
    expect((await listAll(store, `${PREFIX}/_staging/`)).map((o) => o.key)).toEqual([key]);
  });

  it('writes the run record when deleting the report fails', async () => {
    // Prepare: a store whose deletions fail.
    const key = directorySyncReportKey(PREFIX, undefined, RUN_ID);
    await store.put(key, JSON.stringify(REPORT));
    const failing: ObjectStore = {
      rootUri: store.rootUri,
      put: store.put.bind(store),
      putIfAbsent: store.putIfAbsent.bind(store),
      putFile: store.putFile.bind(store),
      putFileIfAbsent: store.putFileIfAbsent.bind(store),
      get: store.get.bind(store),
      head: store.head.bind(store),
      list: store.list.bind(store),
      copy: store.copy.bind(store),
      deleteMany: () => Promise.reject(new Error('injected: DeleteObjects refused')),
    };

    // Act
    const out = await finalizeRun(input(key), { store: failing, prefix: PREFIX, metrics });

    // Assess
    expect(out.contacts.directories).toBe(1);
    expect((await recordAt(out.runRecordKey)).contacts.directories).toEqual(REPORT.outcomes);
    expect((await listAll(store, `${PREFIX}/_staging/`)).map((o) => o.key)).toEqual([key]);
  });

  it('reads and deletes nothing when the execution synced no directory', async () => {
    // Prepare: another run's report under the same staging area.
    const other = directorySyncReportKey(PREFIX, undefined, 'another-run');
    await store.put(other, JSON.stringify({ ...REPORT, runId: 'another-run' }));

    // Act
    const out = await finalizeRun({ ...input(null), contacts: null }, { store, prefix: PREFIX, metrics });

    // Assess
    expect(out.contacts.status).toBe('skipped');
    expect((await listAll(store, `${PREFIX}/_staging/`)).map((o) => o.key)).toEqual([other]);
  });
});
