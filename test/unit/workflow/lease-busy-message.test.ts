import * as fs from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dayWindow } from '../../../lib/calendar';
import { LocalDirectoryStore, LocalFileSecretStore } from '../../../lib/stores';
import type { Lease, LeaseStore } from '../../../lib/stores/lease-store';
import { LocalLeaseStore } from '../../../lib/stores/local-lease-store';
import { LeaseBusyError } from '../../../lib/workflow/errors';
import { exportResults, publishLease } from '../../../lib/workflow/export-task';
import type { JobTaskInput } from '../../../lib/workflow/job-cursor';
import { SecretTokenSource, TOKEN_REFRESH_LEASE } from '../../../lib/workflow/service-secret';
import { callsOn, resultStreamOf } from '../../support/result-stream';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(tmpdir(), 'lease-busy-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const ZONE = 'Europe/London';
const DATE = '2026-06-01';

/** A lease store that says nothing of its holders, as the S3 one. */
function withoutHolders(inner: LeaseStore): LeaseStore {
  return { acquire: (key, options) => inner.acquire(key, options) };
}

/** Runs ExportResults for one report's day whose partition lease another owner holds. */
async function exportWhileHeld(leases: LeaseStore): Promise<unknown> {
  const window = dayWindow(DATE, ZONE);
  const input: JobTaskInput = {
    runId: 'run-1',
    job: {
      jobId: 'job-1',
      reportId: 'rep-1',
      reportName: 'Lost calls',
      window: { ...window, firstDate: DATE, lastDate: DATE },
    },
    cursor: {},
  };
  return exportResults(input, {
    reporting: { openResult: async () => resultStreamOf(callsOn([DATE], 3, 'a'), { requestId: 'req-1' }) },
    store: new LocalDirectoryStore(path.join(dir, 'lake')),
    prefix: '',
    leases,
    timeZone: ZONE,
    minSplitMinutes: 60,
    csvGzip: false,
    parquetCodec: 'SNAPPY',
    owner: 'exporter-2',
  }).catch((error: unknown) => error);
}

describe('LeaseBusyError messages', () => {
  it('names the partition lease, its holder process and its expiry when a local store holds it', async () => {
    // Prepare: another execution (this live process, owner exporter-1) holds the day's lease.
    const leases = new LocalLeaseStore(path.join(dir, 'leases'));
    const held = (await leases.acquire(publishLease('rep-1', DATE), {
      ttlMs: 60_000,
      owner: 'exporter-1',
    })) as Lease;

    // Act
    const error = await exportWhileHeld(leases);

    // Assess
    expect(error).toBeInstanceOf(LeaseBusyError);
    const message = (error as Error).message;
    expect(message).toMatch(
      new RegExp(
        `^Another execution is publishing report Lost calls for ${DATE} \\(lease publish/rep-1/${DATE} held by pid ${process.pid} on ${hostname()} \\(owner exporter-1\\) until \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z \\(file .*${DATE}\\.lease; if that process is gone, delete the file\\)\\); retried later$`,
      ),
    );
    await held.release();
  });

  it('keeps the short message when the store cannot say who holds the lease (S3)', async () => {
    // Prepare
    const local = new LocalLeaseStore(path.join(dir, 'leases'));
    await local.acquire(publishLease('rep-1', DATE), { ttlMs: 60_000, owner: 'exporter-1' });

    // Act
    const error = await exportWhileHeld(withoutHolders(local));

    // Assess
    expect(error).toBeInstanceOf(LeaseBusyError);
    expect((error as Error).message).toBe(
      `Another execution is publishing report Lost calls for ${DATE}; retried later`,
    );
  });

  it('names the token refresh lease, its holder and its expiry when a refresh outlasts the wait', async () => {
    // Prepare: another token source holds the refresh lease; this one waits 0 ms.
    const secrets = new LocalFileSecretStore(path.join(dir, 'secrets.json'));
    await secrets.put('service', {
      authUrl: 'http://127.0.0.1:1',
      baseUrl: 'http://127.0.0.1:1/api',
      clientId: 'client',
      clientSecret: 'secret',
      redirectUri: 'http://127.0.0.1:8000/',
      refreshToken: 'refresh-0',
      accessToken: 'access-0',
      accessTokenExpiresAt: 0,
    });
    const leases = new LocalLeaseStore(path.join(dir, 'leases'));
    await leases.acquire(TOKEN_REFRESH_LEASE, { ttlMs: 60_000, owner: 'other-task' });
    const source = new SecretTokenSource({
      secrets,
      secretName: 'service',
      leases,
      leaseWaitMs: 0,
      refresh: () => Promise.reject(new Error('never called')),
      sleep: () => Promise.resolve(),
    });

    // Act
    const error = await source.getAccessToken().catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(LeaseBusyError);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^Another task is refreshing the access token \\(lease token-refresh held by pid ${process.pid} on ${hostname()} \\(owner other-task\\) until [\\dT:.-]+Z \\(file .*token-refresh\\.lease; if that process is gone, delete the file\\)\\); retry later$`,
      ),
    );
  });
});
