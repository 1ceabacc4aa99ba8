import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exportReportResult, removeStaleSpill } from '../../../lib/export';
import { LocalDirectoryStore } from '../../../lib/stores';
import { currentProcess, type ProcessIdentity, processStartTime } from '../../../lib/stores/process-identity';
import { callsOn, resultStreamOf } from '../../support/result-stream';

/**
 * What an export killed mid-run (out of memory, a Lambda timeout, kill -9) leaves in its
 * spill directory is removed by the next export there: a Lambda execution environment keeps
 * /tmp, and each death would otherwise take its bytes from every later export.
 */

/** A process that has ended: started, its identity read while it ran, then killed. */
async function endedProcess(): Promise<ProcessIdentity> {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
  await once(child, 'spawn');
  const pid = child.pid as number;
  const start = processStartTime(pid);
  child.kill('SIGKILL');
  await once(child, 'exit');
  return { host: hostname(), pid, ...(start === undefined ? {} : { start }) };
}

describe('removeStaleSpill', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stale-spill-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** A spill directory as an export makes it: an owner record (or none, or garbage) and a part file. */
  async function spillOf(
    name: string,
    owner: ProcessIdentity | string | undefined,
    ageMs = 0,
  ): Promise<void> {
    const root = join(dir, name);
    await mkdir(join(root, '2026-06-01'), { recursive: true });
    await writeFile(join(root, '2026-06-01', 'part-00001.parquet'), 'x'.repeat(1024));
    if (owner !== undefined)
      await writeFile(join(root, '_owner.json'), typeof owner === 'string' ? owner : JSON.stringify(owner));
    if (ageMs > 0) {
      const when = new Date(Date.now() - ageMs);
      await utimes(root, when, when);
    }
  }

  async function layout(): Promise<void> {
    const me = currentProcess();
    await spillOf('report-export-dead', await endedProcess());
    await spillOf('report-export-mine', me);
    // The test runner's parent: alive, and not this process.
    const parentStart = processStartTime(process.ppid);
    await spillOf('report-export-alive', {
      host: me.host,
      pid: process.ppid,
      ...(parentStart === undefined ? {} : { start: parentStart }),
    });
    // This pid, but another start time: a runtime restarted into its predecessor's pid.
    await spillOf('report-export-reused', { host: me.host, pid: me.pid, start: '1' });
    await spillOf('report-export-unowned-old', undefined, 2 * 60 * 60_000);
    await spillOf('report-export-unowned-new', undefined);
    await spillOf('report-export-garbled-old', '{"host":', 2 * 60 * 60_000);
    await spillOf('not-a-spill', undefined, 2 * 60 * 60_000);
  }

  it('removes the spill of ended processes (a reused pid included) and old unowned ones, and keeps the live ones', async () => {
    // Prepare
    await layout();

    // Act
    const removed = await removeStaleSpill(dir);

    // Assess
    expect(removed.map((r) => r.slice(dir.length + 1))).toEqual([
      'report-export-dead',
      'report-export-garbled-old',
      'report-export-reused',
      'report-export-unowned-old',
    ]);
    expect((await readdir(dir)).sort()).toEqual([
      'not-a-spill',
      'report-export-alive',
      'report-export-mine',
      'report-export-unowned-new',
    ]);
  });

  it("removes every spill but this process's own when the directory is the process's alone (a Lambda environment)", async () => {
    // Prepare
    await layout();

    // Act
    await removeStaleSpill(dir, { exclusive: true });

    // Assess
    expect((await readdir(dir)).sort()).toEqual(['not-a-spill', 'report-export-mine']);
  });

  it('lets an export remove what a killed export left, and leave no spill of its own behind', async () => {
    // Prepare: a killed export's part files in the spill directory.
    await spillOf('report-export-killed', await endedProcess());
    const store = new LocalDirectoryStore(join(dir, 'lake'));
    const warnings: { message: string; fields?: Record<string, unknown> }[] = [];

    // Act
    const summary = await exportReportResult({
      source: resultStreamOf(callsOn(['2026-06-01'], 20, 'k'), { requestId: 'req-k' }),
      store,
      reportId: 'rep-k',
      spillDirectory: dir,
      encodeWorker: false,
      logger: { warn: (message, fields) => warnings.push({ message, ...(fields ? { fields } : {}) }) },
    });

    // Assess
    expect(summary.rows).toBe(20);
    expect((await readdir(dir)).filter((n) => n.startsWith('report-export-'))).toEqual([]);
    expect(warnings).toEqual([
      {
        message: 'removed the spill of exports whose process ended',
        fields: { stale: [join(dir, 'report-export-killed')] },
      },
    ]);
  });
});
