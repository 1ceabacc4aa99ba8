import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEST_PAUSE_VARIABLE } from '../../../lib/export/publish/test-pause';
import { BUILT_PROGRAM, runCli } from '../../support/cli-process';
import { filesUnder } from '../../support/files';
import { useCliProcesses, useTempDir } from '../../support/test-scope';

/**
 * `kill -9` of a local run (`npm start`, its whole process group: the CLI and the functions'
 * processes) at a known phase of its publish step, then a plain re-run. The phase is reached
 * through the test-only pause hook (lib/export/publish/test-pause.ts): the ExportResults
 * process stops there for good and writes a file, the test waits for the file and kills.
 */

/** The built program, as installed (startCli's default): no tsx start-up per run. */
const SCRIPT = BUILT_PROGRAM;
/** A failed re-run would wait on a lease for 16 minutes: far past this. */
const RERUN_TIMEOUT_MS = 150_000;
/** The first run after a change of the sources also builds the Lambda bundles. */
const PAUSE_TIMEOUT_MS = 240_000;
/** Partitions promoted concurrently with the paused one finish their manifests within this. */
const SETTLE_TIMEOUT_MS = 30_000;

const inStaging = (f: string) => f.split(path.sep).includes('_staging');

interface Manifest {
  runId: string;
  rows: number;
  files: { name: string; rows: number; bytes: number; sha256: string }[];
}

/**
 * Every partition of the lake as its manifest states it, checked against its files: each
 * listed file has the stated bytes and sha256, and the partition holds no other part.
 * Returns the run id of each partition's manifest.
 */
async function checkedPartitions(lake: string): Promise<Map<string, string>> {
  const runs = new Map<string, string>();
  const files = await filesUnder(lake);
  for (const rel of files.filter((f) => f.endsWith('_manifest.json') && !inStaging(f))) {
    const dir = path.dirname(path.join(lake, rel));
    const manifest = JSON.parse(await readFile(path.join(lake, rel), 'utf8')) as Manifest;
    for (const f of manifest.files) {
      const bytes = await readFile(path.join(dir, f.name));
      expect([rel, f.name, bytes.length, createHash('sha256').update(bytes).digest('hex')]).toEqual([
        rel,
        f.name,
        f.bytes,
        f.sha256,
      ]);
    }
    const parts = (await readdir(dir)).filter((n) => n !== '_manifest.json').sort();
    expect([rel, parts]).toEqual([rel, manifest.files.map((f) => f.name).sort()]);
    runs.set(path.dirname(rel), manifest.runId);
  }
  return runs;
}

describe('npm start killed with SIGKILL mid-publish, then run again', () => {
  const workDir = useTempDir('start-kill-');
  const processes = useCliProcesses();

  /** One lake and state directory per case; the same arguments for every run of it. */
  function setup(name: string) {
    const lake = path.join(workDir(), name, 'lake');
    const state = path.join(workDir(), name, 'state');
    const args = [
      '--out',
      lake,
      '--secrets-file',
      path.join(state, 'secrets.json'),
      '--from',
      '2026-03-02',
      '--to',
      '2026-03-04',
      '--rows-per-day',
      '200',
      '--report',
      'Lost calls',
      // One tenant's run: the pause stops its publish step alone.
      '--tenant',
      'london',
      // The staging and promotion protocol of both formats, which a killed run interrupts:
      // the Hive layout runs it for the Parquet too. Over tables only the CSV takes it and the
      // Parquet is one commit after the promotion (a run killed before it leaves the table as
      // it was: test/unit/export/table, test/integration/export/iceberg-tables.test.ts).
      '--catalog',
      'hive',
    ];
    return { lake, state, args, pauseFile: path.join(workDir(), name, 'paused.json') };
  }

  /**
   * Starts a run that stops at `point` of its publish step, waits until it has (and until
   * `settled` holds, for what other partitions still in flight go on to do), and kills its group.
   */
  async function killAt(
    args: string[],
    point: string,
    pauseFile: string,
    settled: () => Promise<boolean> = async () => true,
  ): Promise<void> {
    const cli = processes.start(args, {
      script: SCRIPT,
      env: { [TEST_PAUSE_VARIABLE]: `${point}:${pauseFile}` },
    });
    await cli.until(() => existsSync(pauseFile), { timeoutMs: PAUSE_TIMEOUT_MS });
    const deadline = Date.now() + SETTLE_TIMEOUT_MS;
    while (!(await settled())) {
      if (Date.now() > deadline) throw new Error(`the run never settled after pausing at ${point}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await cli.stop()).toBe(true);
  }

  /** A plain re-run: it must finish at once, without a lease wait, and leave no staging. */
  async function rerun(lake: string, state: string, args: string[]) {
    const started = Date.now();
    const again = await runCli(args, { script: SCRIPT, timeoutMs: RERUN_TIMEOUT_MS });
    expect(again.stderr).not.toMatch(/Another execution is publishing|export failed/);
    expect([again.code, again.stdout]).toEqual([
      0,
      expect.stringMatching(/Exported [\d,]+ rows of 1 report/),
    ]);
    expect(Date.now() - started).toBeLessThan(RERUN_TIMEOUT_MS);
    expect((await filesUnder(lake)).filter(inStaging)).toEqual([]);
    expect((await filesUnder(path.join(state, 'leases'))).filter((f) => f.endsWith('.lease'))).toEqual([]);
    return again;
  }

  it('re-runs at once when killed after the export, before staging (publish leases held)', async () => {
    // Prepare: killed with its rows exported and verified, the partition leases held.
    const { lake, state, args, pauseFile } = setup('export');
    await killAt(args, 'publish', pauseFile);
    expect((await filesUnder(path.join(state, 'leases'))).filter((f) => f.includes('publish'))).not.toEqual(
      [],
    );
    expect((await filesUnder(lake)).filter(inStaging)).toEqual([]);

    // Act
    await rerun(lake, state, args);

    // Assess
    expect((await checkedPartitions(lake)).size).toBe(6);
  }, 420_000);

  it('re-runs at once and deletes the staging when killed while staging', async () => {
    // Prepare: killed after its 2nd staged file.
    const { lake, state, args, pauseFile } = setup('stage');
    await killAt(args, 'stage#2', pauseFile);
    const left = (await filesUnder(lake)).filter(inStaging);
    expect(left.some((f) => f.endsWith('_owner.json'))).toBe(true);
    expect(left.some((f) => f.endsWith('.parquet') || f.endsWith('.csv'))).toBe(true);

    // Act
    const again = await rerun(lake, state, args);

    // Assess
    expect(again.stderr).toMatch(/which has ended: no partition had been replaced yet; .*_staging.* deleted/);
    expect((await checkedPartitions(lake)).size).toBe(6);
  }, 420_000);

  it('rolls back the half-done promotion, re-runs at once and leaves no staging when killed while promoting', async () => {
    // Prepare: a complete run, then one killed at its 3rd partition's manifest: two partitions
    // promoted, the others with new parts under the earlier run's manifest, backups staged.
    const { lake, state, args, pauseFile } = setup('promote');
    const first = await runCli(args, { script: SCRIPT, timeoutMs: PAUSE_TIMEOUT_MS });
    expect(first.code).toBe(0);
    const before = await checkedPartitions(lake);
    // Partitions are promoted four at a time: the 1st and 2nd to arrive at the manifest go on
    // to write it (the 3rd and every later one stop), possibly after the pause file appears.
    const replaced = async () => {
      const runs = new Map<string, string>();
      for (const rel of (await filesUnder(lake)).filter(
        (f) => f.endsWith('_manifest.json') && !inStaging(f),
      )) {
        // The store writes a manifest whole (a temporary file renamed): it parses once it exists.
        const manifest = JSON.parse(await readFile(path.join(lake, rel), 'utf8')) as Manifest;
        runs.set(path.dirname(rel), manifest.runId);
      }
      return [...runs].filter(([dir, runId]) => before.get(dir) !== runId);
    };
    await killAt(args, 'promote#3', pauseFile, async () => (await replaced()).length >= 2);
    const left = (await filesUnder(lake)).filter(inStaging);
    expect(left.some((f) => f.split(path.sep).includes('_backup'))).toBe(true);
    expect(left.some((f) => f.split(path.sep).includes('_journal'))).toBe(true);
    expect(await replaced()).toHaveLength(2);

    // Act
    const again = await rerun(lake, state, args);

    // Assess
    expect(again.stderr).toMatch(
      /which has ended: [4-6] partition\(s\) it had begun to replace restored from its backups/,
    );
    const after = await checkedPartitions(lake);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [dir, runId] of after) expect([dir, runId === before.get(dir)]).toEqual([dir, false]);
  }, 600_000);
});
