import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../../support/cli-in-process';

describe('report-export workflow', () => {
  let work: string;

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'workflow-tenant-'));
  });

  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it("runs an input naming a tenant on the multi-tenant deployment, into that tenant's partitions", async () => {
    // Act
    const lake = path.join(work, 'lake');
    const run = await runInProcess(
      [
        'workflow',
        '--input',
        '{"tenant":"sydney","date":"2026-11-18"}',
        '--out',
        lake,
        '--rows-per-day',
        '10',
        '--wait-ms',
        '0',
      ],
      { cwd: work },
    );

    // Assess
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'SUCCEEDED', jobs: 3 });
    expect(await readdir(path.join(lake, 'calls', 'format=csv'))).toEqual(['tenant=sydney']);
    expect(await readdir(path.join(lake, 'runs'))).toEqual(['tenant=sydney']);
  }, 120_000);
});
