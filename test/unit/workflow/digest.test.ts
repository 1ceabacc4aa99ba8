import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shiftDate } from '../../../lib/calendar';
import { LocalDirectoryStore, type ObjectStore, readObject } from '../../../lib/stores';
import { noticeTopicFromUri } from '../../../lib/stores/aws';
import { digestAwsCalls, SAMPLE } from '../../../lib/workflow/aws-calls';
import {
  buildDigest,
  type DigestTenant,
  digestTenant,
  FAILING_NIGHTS_THRESHOLD,
  MAX_STREAK_NIGHTS,
  type NightDigest,
} from '../../../lib/workflow/digest';
import { type DigestMessage, digestMessage, MAX_SUBJECT_CHARS } from '../../../lib/workflow/digest-message';
import {
  type DigestOutput,
  digestSettingsFromEnvironment,
  publishDigest,
} from '../../../lib/workflow/digest-task';
import { finalizeRun } from '../../../lib/workflow/finalize';
import { createDigestHandler } from '../../../lib/workflow/handlers';
import type { JobCursor } from '../../../lib/workflow/job-cursor';
import type { RunRecord } from '../../../lib/workflow/run-record';
import type { WorkflowRuntime } from '../../../lib/workflow/runtime-types';
import { TenantRegistry } from '../../../lib/workflow/tenant-registry';
import { tenantEntry } from './tenant-fixtures';

const HOUR = 3_600_000;
const LOST = { id: 'r1', name: 'Lost calls' };
/** The digest's scheduled time: 09:00 UTC. Each tenant's nightly run is at 02:00 UTC (zone UTC). */
const AT = Date.parse('2026-12-04T09:00:00Z');
const TODAY = '2026-12-04';
const SNS_MAX_BYTES = 256 * 1024;

type Outcome = 'ok' | 'failed' | 'caught';

/** One execution written by Finalize, the record's one writer, as an execution's end does. */
async function execution(
  lake: { store: ObjectStore; prefix: string },
  tenant: string | undefined,
  runId: string,
  startedAt: number,
  outcome: Outcome,
  progress: Partial<JobCursor> = {},
): Promise<void> {
  const yesterday = shiftDate(new Date(startedAt).toISOString().slice(0, 10), -1);
  const published = { firstDate: yesterday, lastDate: yesterday, partitions: 1, rows: 10, ...progress };
  await finalizeRun(
    {
      input: tenant === undefined ? {} : { tenant },
      executionName: `${tenant ?? 'none'}-${runId}`,
      startedAt: new Date(startedAt).toISOString(),
      ...(outcome === 'caught'
        ? { failure: { Error: 'TenantConfigError', Cause: 'the entry is invalid' } }
        : {
            plan: {
              runId,
              mode: 'nightly',
              ...(tenant === undefined ? {} : { tenant }),
              timeZone: 'UTC',
              dates: { from: yesterday, to: yesterday },
              jobCount: 1,
              hasContinuation: false,
            },
            results: [
              {
                jobId: 'job-0001',
                reportId: LOST.id,
                reportName: LOST.name,
                ...(outcome === 'failed'
                  ? { status: 'FAILED' as const, error: 'ReportRunFailedError', progress: {} }
                  : { status: 'SUCCEEDED' as const, progress: published }),
              },
            ],
          }),
    },
    {
      ...lake,
      ...(tenant === undefined ? {} : { tenant }),
      metrics: { add: () => undefined, flush: () => undefined },
      now: () => new Date(startedAt + 60_000),
    },
  );
}

/** The nightly run k nights before the digest's night (k = 0: tonight, 02:00 UTC). */
const nightly = (k: number, hour = 2) => Date.parse(`${shiftDate(TODAY, -k)}T00:00:00Z`) + hour * HOUR;

/** Tenant ids t00..t39: what each one's nights were (unlisted: every night of the last week ok). */
const SCENARIO = {
  failed: ['t05', 't06', 't07'], // tonight failed (t06 a caught failure), every night before ok
  failingFive: 't08', // failed 5 nights running, ok before
  failingLong: 't09', // failed 35 nights running
  failingTwo: 't10', // failed 2 nights running
  recovered: 't11', // failed last night, ok tonight
  rerun: 't12', // failed at 01:00 tonight, a re-run at 03:00 succeeded
  held: 't13', // tonight's run held 2026-12-02 (look-back of 3 days)
  missedNight: 't14', // no run tonight (warn)
  threeNightsOld: 't15', // last run 3 nights ago (error)
  disabled: 't16', // disabled, no record
  afterDigest: 't17', // ok tonight, a failure at 09:30 (after the digest's time)
} as const;

const ID_COUNT = 40;
const ids = Array.from({ length: ID_COUNT }, (_, i) => `t${String(i).padStart(2, '0')}`);

describe('the night digest', () => {
  let work: string;
  let lake: { store: ObjectStore; prefix: string };
  let tenants: DigestTenant[];
  let published: DigestMessage[];
  let output: DigestOutput;
  let digest: NightDigest;

  beforeAll(async () => {
    // Prepare: a registry of 40 tenants and a local lake whose run records Finalize wrote
    work = await mkdtemp(path.join(tmpdir(), 'digest-'));
    const store = new LocalDirectoryStore(work);
    lake = { store, prefix: 'lake' };
    const registry = new TenantRegistry({ store, prefix: 'tenants' });
    for (const id of ids) {
      await registry.put(
        tenantEntry(id, { timeZone: 'UTC', reports: [LOST], enabled: id !== SCENARIO.disabled }),
        { create: true },
      );
    }
    const s = SCENARIO;
    const special = new Set<string>([...s.failed, ...Object.values(s).filter((v) => typeof v === 'string')]);
    for (const id of ids.filter((i) => !special.has(i) || i === s.afterDigest)) {
      for (let k = 0; k < 3; k++) await execution(lake, id, `n${k}`, nightly(k), 'ok');
    }
    for (const id of s.failed) {
      await execution(lake, id, 'n0', nightly(0), id === 't06' ? 'caught' : 'failed');
      for (let k = 1; k < 3; k++) await execution(lake, id, `n${k}`, nightly(k), 'ok');
    }
    const streak = async (id: string, failed: number, total: number) => {
      for (let k = 0; k < total; k++)
        await execution(lake, id, `n${k}`, nightly(k), k < failed ? 'failed' : 'ok');
    };
    await streak(s.failingFive, 5, 7);
    await streak(s.failingLong, 35, 35);
    await streak(s.failingTwo, 2, 4);
    await streak(s.recovered, 0, 1);
    await execution(lake, s.recovered, 'n1', nightly(1), 'failed');
    await execution(lake, s.recovered, 'n2', nightly(2), 'ok');
    await execution(lake, s.rerun, 'n0-first', nightly(0, 1), 'failed');
    await execution(lake, s.rerun, 'n0-rerun', nightly(0, 3), 'ok');
    await execution(lake, s.rerun, 'n1', nightly(1), 'ok');
    await execution(lake, s.held, 'n0', nightly(0), 'ok', {
      firstDate: '2026-12-01',
      lastDate: '2026-12-03',
      partitions: 2,
      held: [{ dt: '2026-12-02', publishedRows: 40, rows: 3, basis: 'rows' }],
      heldCount: 1,
    });
    await execution(lake, s.held, 'n1', nightly(1), 'ok');
    await execution(lake, s.missedNight, 'n1', nightly(1), 'ok');
    await execution(lake, s.threeNightsOld, 'n3', nightly(3), 'ok');
    await execution(lake, s.afterDigest, 'late', AT + HOUR / 2, 'failed');
    // A failure recorded without a tenant tonight (an input naming none the registry has).
    await execution(lake, undefined, 'stray', nightly(0), 'caught');
    tenants = (await registry.list()).map(digestTenant);
    published = [];

    // Act
    output = await publishDigest(new Date(AT), {
      lake,
      tenants,
      topic: { publish: async (m) => void published.push(m) },
      deployment: 'ReportExport',
      multiTenant: true,
      onUnreadable: (key) => {
        throw new Error(`unreadable ${key}`);
      },
    });
    const records = new Map<string | null, RunRecord[]>();
    for (const t of tenants) records.set(t.id, await readAll(lake.store, `lake/runs/tenant=${t.id}/`));
    records.set(null, await readAll(lake.store, 'lake/runs/dt='));
    digest = buildDigest({ at: new Date(AT), tenants, records });
  });

  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('publishes one message for the night', () => {
    // Assess
    expect(published).toHaveLength(1);
    expect(output).toMatchObject({ tenants: ID_COUNT, failed: 6, held: 1, recovered: 1 });
  });

  it('lists exactly the tenants whose last execution of the night failed, with their error names', () => {
    // Assess
    expect(digest.failed.map((f) => [f.tenant, f.errors, f.nightsRunning])).toEqual([
      ['t05', ['ReportRunFailedError'], 1],
      ['t06', ['TenantConfigError'], 1],
      ['t07', ['ReportRunFailedError'], 1],
      ['t08', ['ReportRunFailedError'], 5],
      ['t09', ['ReportRunFailedError'], MAX_STREAK_NIGHTS],
      ['t10', ['ReportRunFailedError'], 2],
    ]);
  });

  it('names a tenant failing N nights running from the threshold on, and no one below it', () => {
    // Assess
    const body = published[0]?.body ?? '';
    expect(FAILING_NIGHTS_THRESHOLD).toBe(3);
    expect(body).toContain('t08 (Tenant t08): ReportRunFailedError; failing 5 nights running');
    expect(body).toContain(
      `t09 (Tenant t09): ReportRunFailedError; failing ${MAX_STREAK_NIGHTS}+ nights running`,
    );
    expect(body).toMatch(/t10 \(Tenant t10\): ReportRunFailedError\n/);
    expect(body).not.toMatch(/t05[^\n]*running/);
  });

  it('lists exactly the held tenants with their days', () => {
    // Assess
    expect(digest.held).toEqual([
      { tenant: 't13', name: 'Tenant t13', days: [{ reportName: 'Lost calls', dt: '2026-12-02' }] },
    ]);
  });

  it('lists exactly the stale tenants (warn and error) with the verdict and lag', () => {
    // Assess: the failed ones are a night behind (warn: 33 h > 28 h), five and more nights error
    expect(digest.stale.map((s) => [s.tenant, s.verdict, s.lagMinutes])).toEqual([
      ['t05', 'warn', 33 * 60],
      ['t06', 'warn', 33 * 60],
      ['t07', 'warn', 33 * 60],
      ['t08', 'error', (5 * 24 + 9) * 60],
      ['t09', 'error', null],
      ['t10', 'error', (33 + 24) * 60],
      ['t14', 'warn', 33 * 60],
      ['t15', 'error', (33 + 48) * 60],
    ]);
  });

  it('lists as recovered the tenant that failed the night before and succeeded this night', () => {
    // Assess
    expect(digest.recovered).toEqual([{ tenant: 't11', name: 'Tenant t11' }]);
  });

  it('counts disabled tenants and failures without a tenant, and ignores records after its time', () => {
    // Assess
    expect(digest.disabled).toBe(1);
    expect(digest.unattributedFailures).toBe(1);
    expect(digest.failed.map((f) => f.tenant)).not.toContain(SCENARIO.afterDigest);
    expect(digest.failed.map((f) => f.tenant)).not.toContain(SCENARIO.rerun);
  });

  it('makes only the S3 calls lib/workflow/aws-calls.ts declares for the Digest function', async () => {
    // Prepare: the lake and registry behind a store that records every operation
    const used: { op: string; key: string }[] = [];
    const recording = new Proxy(lake.store, {
      get(target, name, receiver) {
        const member = Reflect.get(target, name, receiver);
        if (typeof member !== 'function') return member;
        return (...args: unknown[]) => {
          used.push({ op: String(name), key: String(args[0]) });
          return member.apply(target, args);
        };
      },
    });
    const registry = new TenantRegistry({ store: recording, prefix: 'tenants' });
    const declared = digestAwsCalls(
      {
        OBJECT_STORE_URI: 's3://lake-bucket/lake',
        TENANT_REGISTRY_URI: 's3://lake-bucket/tenants',
        NOTICE_TOPIC_URI: 'arn:aws:sns:eu-west-2:123456789012:alarms',
      },
      'arn:aws:kms:eu-west-2:123456789012:key/k',
    ).flatMap((c) => c.permissions);
    // A declared key or prefix as a pattern: any tenant, date and run id in its place.
    const pattern = (sample: string) =>
      new RegExp(
        `^${sample
          .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
          .replaceAll('acme', '[a-z0-9-]+')
          .replaceAll(SAMPLE.runId, '[^/]+')
          .replace(/\d{4}-\d{2}-\d{2}/g, '\\d{4}-\\d{2}-\\d{2}')}$`,
      );
    const lists = declared
      .filter((p) => p.action === 's3:ListBucket' && typeof p.context?.['s3:prefix'] === 'string')
      .map((p) => pattern(String(p.context?.['s3:prefix'])));
    const gets = declared
      .filter((p) => p.action === 's3:GetObject')
      .map((p) => pattern(p.resource.replace('arn:aws:s3:::lake-bucket/', '')));

    // Act
    await publishDigest(new Date(AT), {
      lake: { store: recording, prefix: 'lake' },
      tenants: (await registry.list()).map(digestTenant),
      topic: { publish: async () => undefined },
      deployment: 'ReportExport',
      multiTenant: true,
      onUnreadable: () => undefined,
    });

    // Assess: it listed and read, nothing else, and each call is a declared one
    expect(new Set(used.map((u) => u.op))).toEqual(new Set(['list', 'get']));
    const undeclared = used.filter((u) => !(u.op === 'list' ? lists : gets).some((re) => re.test(u.key)));
    expect(undeclared).toEqual([]);
    expect(used.length).toBeGreaterThan(ID_COUNT * 4);
  });

  it('reads the same digest through the bounded reader as from every record', () => {
    // Assess: publishDigest read only the dates it bounds; the counts match the whole lake's
    const fromAll = digestMessage(digest, 'ReportExport');
    expect(published[0]).toEqual(fromAll);
  });
});

describe('digestMessage', () => {
  it('stays within SNS limits for 1,000 tenants that all failed, held and are stale', () => {
    // Prepare
    const many = Array.from({ length: 1000 }, (_, i) => `tenant-${String(i).padStart(4, '0')}`);
    const name = (id: string) => `${id} ${'Ünïcode Contact Centre '.repeat(8)}`;
    const d: NightDigest = {
      night: { from: '2026-12-03T09:00:00.000Z', to: '2026-12-04T09:00:00.000Z' },
      tenants: 1000,
      disabled: 0,
      failed: many.map((t) => ({
        tenant: t,
        name: name(t),
        errors: ['LoginRequiredError', 'ReportRunFailedError', 'StoreFailedError'],
        executions: 2,
        nightsRunning: 12,
      })),
      held: many.map((t) => ({
        tenant: t,
        name: name(t),
        days: Array.from({ length: 31 }, (_, i) => ({ reportName: 'Call list by user', dt: `2026-11-${i}` })),
      })),
      stale: many.map((t) => ({
        tenant: t,
        name: name(t),
        verdict: 'error',
        reportName: 'Lost calls',
        lagMinutes: 9000,
      })),
      recovered: many.map((t) => ({ tenant: t, name: name(t) })),
      unattributedFailures: 3,
    };

    // Act
    const m = digestMessage(d, `Report-Export-${'Long-Stack-Name-'.repeat(10)}`);

    // Assess
    expect(m.subject.length).toBeLessThanOrEqual(MAX_SUBJECT_CHARS);
    expect(m.subject).toMatch(/^[\x20-\x7e]+$/);
    expect(m.subject).toContain('1000 failed, 1000 held, 1000 stale, 1000 recovered');
    expect(Buffer.byteLength(m.body, 'utf8') + m.subject.length).toBeLessThanOrEqual(SNS_MAX_BYTES);
    expect(m.body).toContain('Failed (1000)');
    expect(m.body).toContain('Recovered (1000)');
    expect(m.body).toMatch(/ {2}and \d+ more\n\nHeld/);
    expect(m.body).toMatch(/Recovered \(1000\)\n(- .*\n)+ {2}and \d+ more$/);
    expect(m.body).toContain('- tenant-0000 (');
  });

  it('lists every tenant and says no "more" when they fit', () => {
    // Prepare
    const d = buildDigest({ at: new Date(AT), tenants: [], records: new Map() });

    // Act
    const m = digestMessage(d, 'ReportExport');

    // Assess
    expect(m.subject).toBe('ReportExport: 0 failed, 0 held, 0 stale, 0 recovered (2026-12-04T09:00Z)');
    expect(m.body).not.toContain('more');
  });
});

/** Every run record under a prefix (the whole history, unbounded: what the bounded reader must match). */
async function readAll(store: ObjectStore, prefix: string): Promise<RunRecord[]> {
  const out: RunRecord[] = [];
  for await (const info of store.list(prefix)) {
    out.push(JSON.parse(new TextDecoder().decode(await readObject(store, info.key))) as RunRecord);
  }
  return out;
}

describe('the Digest task', () => {
  let work: string;

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'digest-task-'));
  });

  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  /** A multi-tenant runtime as the handler uses it: the registry, the lake, a logger. */
  async function runtimeWith(failedTenant: string): Promise<WorkflowRuntime> {
    const store = new LocalDirectoryStore(path.join(work, failedTenant));
    const registry = new TenantRegistry({ store, prefix: 'tenants' });
    for (const id of ['ok-1', failedTenant]) {
      await registry.put(tenantEntry(id, { timeZone: 'UTC', reports: [LOST] }), { create: true });
    }
    const lake = { store, prefix: 'lake' };
    await execution(lake, 'ok-1', 'n0', nightly(0), 'ok');
    await execution(lake, failedTenant, 'n0', nightly(0), 'failed');
    const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
    return { multiTenant: true, registry, objects: { ...lake, uri: 'file:///lake' }, logger: quiet } as never;
  }

  it('publishes the night before its scheduled time to the topic its setting names', async () => {
    // Prepare
    const file = path.join(work, 'notices.jsonl');
    const settings = digestSettingsFromEnvironment({
      NOTICE_TOPIC_URI: pathToFileURL(file).href,
      DEPLOYMENT_NAME: 'Acme-Reseller',
    });
    const handler = createDigestHandler(await runtimeWith('broken'), settings);

    // Act
    const out = await handler({ scheduledTime: new Date(AT).toISOString() });

    // Assess
    expect(out).toMatchObject({ tenants: 2, failed: 1, night: { to: new Date(AT).toISOString() } });
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(1);
    const notice = JSON.parse(lines[0] as string) as { subject: string; body: string };
    expect(notice.subject).toBe('Acme-Reseller: 1 failed, 0 held, 1 stale, 0 recovered (2026-12-04T09:00Z)');
    expect(notice.body).toContain('- broken (Tenant broken): ReportRunFailedError');
  });

  it('refuses a scheduled time that is not an instant', async () => {
    // Prepare
    const settings = digestSettingsFromEnvironment({
      NOTICE_TOPIC_URI: pathToFileURL(path.join(work, 'x')).href,
    });
    const handler = createDigestHandler(await runtimeWith('other'), settings);

    // Act
    const run = handler({ scheduledTime: 'yesterday' });

    // Assess
    await expect(run).rejects.toMatchObject({ name: 'InvalidInputError' });
  });

  it.each([
    [{}, /NOTICE_TOPIC_URI is required/],
    [{ NOTICE_TOPIC_URI: 'file:///tmp/n', NIGHTLY_HOUR: '24' }, /NIGHTLY_HOUR "24" is not an hour/],
  ])('refuses the settings %j', (env, message) => {
    // Act
    const read = () => digestSettingsFromEnvironment(env);

    // Assess
    expect(read).toThrow(message);
  });

  it.each([
    ['arn:aws:sns:eu-west-2:123456789012:ReportExport-AlarmTopic', 'SnsNoticeTopic'],
    ['file:///tmp/notices.jsonl', 'LocalFileNoticeTopic'],
  ])('reads NOTICE_TOPIC_URI %s as its topic', (uri, kind) => {
    // Act
    const topic = noticeTopicFromUri('NOTICE_TOPIC_URI', uri);

    // Assess
    expect(topic.constructor.name).toBe(kind);
  });

  it('refuses a NOTICE_TOPIC_URI that names no topic, naming the setting', () => {
    // Assess
    expect(() => noticeTopicFromUri('NOTICE_TOPIC_URI', 'sns://alarms')).toThrow(
      /^NOTICE_TOPIC_URI "sns:\/\/alarms"/,
    );
  });
});
