import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { partKey } from '../../../lib/export/layout';
import { directoryDataPrefix } from '../../../lib/export/table/snapshot/replace-directories';
import type { LocalDeploymentOptions } from '../../../lib/local/local-deployment';
import { inProcessTasks } from '../../../lib/local/local-tasks';
import { type LocalWorkflowOptions, runLocalWorkflow } from '../../../lib/local/run-workflow';
import type { DirectoryItem } from '../../../lib/spec';
import { listAll, tableRootKey } from '../../../lib/stores';
import {
  functionStoreUses,
  type StoreEnvironment,
  type StoreUse,
  WORKFLOW_FUNCTIONS,
} from '../../../lib/workflow/aws-calls';
import { createWorkflowRuntime } from '../../../lib/workflow/runtime';
import type { WorkflowLogger } from '../../../lib/workflow/runtime-types';
import type { SettingsEnvironment } from '../../../lib/workflow/settings';
import { connect } from '../../integration/api/sim-fixture';
import { startHarness, type WorkflowHarness } from './harness';
import { runRecordAt } from './lake';
import {
  declaredUseMatcher,
  describeUse,
  type RecordedUse,
  type StoreUseRecorder,
  type StoreUseRecorderOptions,
  storeUseRecorder,
} from './store-use-recorder';

/**
 * The declared AWS calls (lib/workflow/aws-calls.ts), which test/infra/iam-evaluation.test.ts
 * checks against the synthesized roles, are complete: real executions on S3 (fauxqs) record
 * every store operation each function performs, and each must be a declared use of that
 * function. A new store call in a handler or in the publish protocol fails here until it is
 * declared, and so checked against IAM.
 */

let h: WorkflowHarness | undefined;
/** Declared uses some scenario exercised, over the whole file (reported in afterAll). */
const exercised = new Set<string>();
const declaredSeen = new Map<string, StoreUse>();

afterEach(async () => {
  await h?.close();
  h = undefined;
});

afterAll(() => {
  const never = [...declaredSeen.entries()].filter(([id]) => !exercised.has(id)).map(([id]) => id);
  if (never.length > 0) console.info(`Declared store uses no scenario exercised:\n  ${never.join('\n  ')}`);
});

const silent: WorkflowLogger = { info: () => {}, warn: () => {}, error: () => {} };

/** A deployment whose Tasks run in-process on a runtime that records every store operation. */
async function recordedDeployment(
  options: Omit<LocalDeploymentOptions, 'workDir'> = {},
  recording: StoreUseRecorderOptions = {},
) {
  const harness = await startHarness({ ...options, functions: 'in-process' });
  h = harness;
  const recorder = storeUseRecorder(recording);
  const runtime = createWorkflowRuntime(harness.deployment.env, {
    logger: silent,
    s3: () => harness.s3.client,
    ...(options.expirySkewMs === undefined ? {} : { expirySkewMs: options.expirySkewMs }),
    observeStores: (stores) => recorder.observeStores(stores),
  });
  const metrics = () => ({ add: () => {}, flush: () => {} });
  const tasks = recorder.attribute(inProcessTasks(runtime, metrics));
  const { workflow } = await harness.deployment.prepare();
  const run = (input: unknown, runOptions: Partial<LocalWorkflowOptions> = {}) =>
    runLocalWorkflow(input, { tasks, definition: workflow.definition, ...runOptions });
  return { harness, recorder, run };
}

/** The environment functionStoreUses reads, as the deployment sets it. */
function storeEnvironment(env: Record<string, string>): StoreEnvironment {
  const need = (name: string) => {
    const v = env[name];
    if (v === undefined) throw new Error(`deployment sets no ${name}`);
    return v;
  };
  return {
    OBJECT_STORE_URI: need('OBJECT_STORE_URI'),
    LEASE_STORE_URI: need('LEASE_STORE_URI'),
    SECRET_URI: need('SECRET_URI'),
    REPORTS: need('REPORTS'),
    ...(env.CSV_GZIP === undefined ? {} : { CSV_GZIP: env.CSV_GZIP }),
    ...(env.TABLE_CATALOG === undefined ? {} : { TABLE_CATALOG: env.TABLE_CATALOG }),
  };
}

/** Every recorded use no declared use of its function covers, described. */
function undeclared(recorder: StoreUseRecorder, env: StoreEnvironment): string[] {
  const declared = new Map(
    WORKFLOW_FUNCTIONS.map((fn) => [
      fn,
      functionStoreUses(fn, env).map((use) => {
        const id = `${fn}: ${use.why}`;
        declaredSeen.set(id, use);
        return { id, matches: declaredUseMatcher(use) };
      }),
    ]),
  );
  const missing = new Set<string>();
  for (const r of recorder.uses) {
    const covering = r.fn === undefined ? [] : (declared.get(r.fn) ?? []).filter((d) => d.matches(r));
    for (const d of covering) exercised.add(d.id);
    if (covering.length === 0) missing.add(describeUse(r));
  }
  return [...missing].sort();
}

const performed = (recorder: StoreUseRecorder, fn: RecordedUse['fn'], store: string, operation: string) =>
  recorder.uses.some((u) => u.fn === fn && u.store === store && u.operation === operation);

describe('declared AWS calls of the workflow (lib/workflow/aws-calls.ts)', () => {
  // The default (what the local deployment runs): Iceberg tables in the file catalog, with a
  // summary report too (the replacing run counts its published calls in the table's data
  // files); and the Hive layout (TABLE_CATALOG=hive), whose stale Parquet part the replacing
  // run deletes.
  it.each([
    {
      mode: 'Iceberg tables in the file catalog',
      tableCatalog: undefined,
      extraTemplates: true,
      // The tables exist (PrepareTables): the export reads their version hint, lists no versions.
      operations: ['putFileIfAbsent', 'get'],
    },
    { mode: 'the Hive layout', tableCatalog: 'hive', extraTemplates: false, operations: ['list'] },
  ])(
    'declares every store operation of a nightly run with a look-back when it replaces published partitions ($mode)',
    async ({ tableCatalog, extraTemplates, operations }) => {
      // Prepare
      const { harness, recorder, run } = await recordedDeployment({
        settings: {
          LOOKBACK_DAYS: '1',
          ...(tableCatalog === undefined ? {} : { TABLE_CATALOG: tableCatalog }),
        } as SettingsEnvironment,
        simulator: { extraTemplates },
      });
      const first = await run({ scheduledTime: '2026-11-19T02:00:00Z' }, { name: 'first' });
      expect(first.status).toBe('SUCCEEDED');
      // A part an earlier, bigger run left: the replacing run deletes it as stale.
      const report = harness.deployment.reports[0]?.id as string;
      const layout = {
        prefix: 'lake',
        dataset: 'calls',
        reportId: report,
        csvExtension: '.csv' as const,
      };
      const stalePart = partKey(layout, 'parquet', '2026-11-18', 1);
      if (tableCatalog === 'hive') await harness.s3.store().put(stalePart, 'stale');
      // Act
      const again = await run({ scheduledTime: '2026-11-19T02:00:00Z' }, { name: 'again' });
      // Assess
      expect(again.status).toBe('SUCCEEDED');
      expect(await listAll(harness.s3.store(), stalePart)).toEqual([]);
      // Beside tables a run that succeeds deletes nothing (its data files are create-only and
      // never deleted by it; its staging goes with the Commit task); the Hive layout deletes a stale part.
      const deletes = tableCatalog === 'hive' ? ['deleteMany'] : [];
      for (const operation of [...deletes, 'putFile', 'head', 'put', ...operations])
        expect(performed(recorder, 'exportResults', 'objects', operation), operation).toBe(true);
      // Beside tables the Commit task promotes the CSV and commits; the Hive layout publishes at once.
      const promoter = tableCatalog === 'hive' ? 'exportResults' : 'commit';
      for (const operation of [
        'copy',
        'put',
        'deleteMany',
        ...(tableCatalog === 'hive' ? [] : ['putIfAbsent']),
      ])
        expect(performed(recorder, promoter, 'objects', operation)).toBe(true);
      expect(performed(recorder, 'finalize', 'objects', 'put')).toBe(true);
      // A job's export writes no table metadata: PrepareTables (the committer) made the tables.
      const writesMetadata = (u: RecordedUse) =>
        u.fn === 'exportResults' &&
        !['get', 'head', 'list'].includes(u.operation) &&
        /\/tables\/[a-z_]+\/metadata\//.test(u.keys[0] ?? '');
      expect(recorder.uses.filter(writesMetadata).map(describeUse)).toEqual([]);
      if (tableCatalog === undefined) {
        const readsSummaryFile = (u: RecordedUse) =>
          u.operation === 'get' && (u.keys[0] ?? '').includes('/tables/summaries/data/');
        expect(recorder.uses.some(readsSummaryFile)).toBe(true);
      }
      expect(undeclared(recorder, storeEnvironment(harness.deployment.env))).toEqual([]);
    },
  );

  it('declares every store operation of a promotion that fails and rolls back', async () => {
    // Prepare: 2026-11-18 published; the next run adds 2026-11-17 (new keys) and replaces
    // 2026-11-18 (backups), and its first write of a 2026-11-18 CSV manifest fails.
    const { harness, recorder, run } = await recordedDeployment(
      {},
      {
        failOnce: (u) =>
          u.operation === 'put' &&
          /format=csv\/.*\/dt=2026-11-18\/_manifest\.json$/.test(u.keys[0] ?? '') &&
          recorder.uses.some((p) => p.operation === 'copy' && p.keys[1]?.includes('/_backup/')),
      },
    );
    const report = harness.deployment.reports[0]?.name as string;
    const first = await run({ date: '2026-11-18', reports: [report] }, { name: 'first' });
    expect(first.status).toBe('SUCCEEDED');
    // Act
    const second = await run({ from: '2026-11-17', to: '2026-11-18', reports: [report] }, { name: 'second' });
    // Assess: rolled back (backups restored, new keys deleted), then retried to success.
    expect(second.status).toBe('SUCCEEDED');
    const restored = recorder.uses.filter((u) => u.operation === 'copy' && u.keys[0]?.includes('/_backup/'));
    expect(restored.length).toBeGreaterThan(0);
    expect(undeclared(recorder, storeEnvironment(harness.deployment.env))).toEqual([]);
  });

  it('declares every store operation of a run when a result reaches the row limit and splits', async () => {
    // Prepare: 300 calls a weekday, a row limit of 100.
    const { harness, recorder, run } = await recordedDeployment({
      simulator: { rowsPerDay: 300, rowLimit: 100 },
    });
    const report = harness.deployment.reports[0]?.name as string;
    // Act
    const result = await run({ date: '2026-11-18', reports: [report] });
    // Assess
    expect(result.status).toBe('SUCCEEDED');
    const requests = (result.executions[0]?.events ?? []).filter(
      (e) => e.type === 'StateEntered' && e.state?.name === 'RequestReport',
    );
    expect(requests.length).toBeGreaterThan(2);
    expect(undeclared(recorder, storeEnvironment(harness.deployment.env))).toEqual([]);
  });

  it('declares every store operation of failed runs when a report fails and when Plan refuses the input', async () => {
    // Prepare
    const { harness, recorder, run } = await recordedDeployment();
    harness.deployment.sim.faults.inject({ route: 'request', kind: 'report-fail', times: 1 });
    // Act
    const failedReport = await run({ date: '2026-11-18' }, { name: 'failed-report' });
    const refused = await run({ date: '2026-02-30' }, { name: 'refused' });
    // Assess
    expect(failedReport.status).toBe('FAILED');
    expect(failedReport.error).toBe('ReportRunFailedError');
    expect(refused.status).toBe('FAILED');
    const records = (await listAll(harness.s3.store(), 'lake/runs/')).map((o) => o.key);
    expect(records.some((k) => k.endsWith('.failure.json'))).toBe(true);
    expect(undeclared(recorder, storeEnvironment(harness.deployment.env))).toEqual([]);
  });

  it('declares every store operation of the directory sync when a directory changes between two runs', async () => {
    // Prepare: a first run syncs every directory (the contact tables created, every
    // partition's first files); then an item replaced and one deleted through the service.
    const { harness, recorder, run } = await recordedDeployment();
    const first = await run({ date: '2026-11-18', contacts: 'sync' }, { name: 'first' });
    expect(first.status).toBe('SUCCEEDED');
    const writer = (await connect(harness.deployment.sim)).api.directories;
    const [directoryId] = harness.deployment.sim.directoryIds as [string];
    const [changed, gone] = (await writer.searchItems(directoryId, '')).sort((a, b) =>
      a.id < b.id ? -1 : 1,
    ) as [DirectoryItem, DirectoryItem];
    await writer.replaceItem(directoryId, changed.id, {
      ...changed.fields,
      jobTitle: 'Head of Returns (e2e)',
    });
    await writer.deleteItem(directoryId, gone.id);

    // Act: the second run reads the partition back, versions it and replaces it.
    const second = await run({ date: '2026-11-18', contacts: 'sync' }, { name: 'second' });

    // Assess: the sync ran, its files and staged syncs landed, the report was read back.
    expect(second.status).toBe('SUCCEEDED');
    const record = await runRecordAt(harness.s3.store(), second.summaries[0]?.runRecordKey as string);
    expect(record.contacts.directories.find((d) => d.directoryId === directoryId)).toMatchObject({
      status: 'committed',
      newVersions: 1,
      deletions: 1,
    });
    for (const operation of ['putIfAbsent', 'head', 'get', 'put'])
      expect(performed(recorder, 'syncDirectories', 'objects', operation), operation).toBe(true);
    expect(performed(recorder, 'syncDirectories', 'secret', 'get')).toBe(true);
    const writesContactsFile = (u: RecordedUse) =>
      u.fn === 'syncDirectories' &&
      u.operation === 'putIfAbsent' &&
      (u.keys[0] ?? '').startsWith(
        `${directoryDataPrefix(tableRootKey('lake', 'contacts'), undefined, directoryId)}/`,
      );
    expect(recorder.uses.filter(writesContactsFile)).toHaveLength(2);
    // Finalize read the report into the run record, then deleted it: no staging is left.
    for (const operation of ['get', 'deleteMany'])
      expect(performed(recorder, 'finalize', 'objects', operation), operation).toBe(true);
    expect(await listAll(harness.s3.store(), 'lake/_staging/')).toEqual([]);
    expect(undeclared(recorder, storeEnvironment(harness.deployment.env))).toEqual([]);
  });

  it('declares every store operation of token refreshes when access tokens expire mid-run', async () => {
    // Prepare: tokens live 1 s and are used up to their expiry.
    const { harness, recorder, run } = await recordedDeployment({
      simulator: { accessTokenTtlSeconds: 1, rotateRefreshTokens: true, reportLatencyMs: 1500 },
      expirySkewMs: 0,
    });
    // Act
    const result = await run({ date: '2026-11-18' }, { waitMs: 600 });
    // Assess
    expect(result.status).toBe('SUCCEEDED');
    expect(recorder.uses.some((u) => u.store === 'secret' && u.operation === 'put')).toBe(true);
    expect(recorder.uses.some((u) => u.store === 'leases' && u.keys[0] === 'token-refresh')).toBe(true);
    expect(undeclared(recorder, storeEnvironment(harness.deployment.env))).toEqual([]);
  });
});
