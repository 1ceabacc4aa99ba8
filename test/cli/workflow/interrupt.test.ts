import { mkdir, readdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OUT_DIR_LOCK_FILE } from '../../../lib/cli/shared/out-dir-lock';
import { runCli } from '../../support/cli-process';
import { useCliProcesses, useTempDir } from '../../support/test-scope';

const SCRIPT = 'bin/workflow.ts';

describe('npm run workflow (interrupted, locked)', () => {
  const workDir = useTempDir('workflow-interrupt-');
  const processes = useCliProcesses();

  it('exits 130 leaving no secret file, no lock and no lease behind when sent SIGINT mid-run', async () => {
    // Prepare: its own temporary directory, so what the run leaves there is visible.
    const tmp = path.join(workDir(), 'tmp');
    const lake = path.join(workDir(), 'lake');
    await mkdir(tmp);
    const cli = processes.start(
      ['--input', '{"from":"2026-11-01","to":"2026-11-21"}', '--out', lake, '--rows-per-day', '3000'],
      { script: SCRIPT, env: { TMPDIR: tmp } },
    );
    await cli.waitFor(/ExportResults/, { stream: 'stderr', timeoutMs: 120_000 });

    // Act
    cli.child.kill('SIGINT');
    const code = await cli.exited;

    // Assess
    expect(code).toBe(130);
    expect(cli.stderr()).toMatch(/interrupted: partitions already published stay/);
    expect((await readdir(tmp)).filter((f) => f.startsWith('report-export-workflow-'))).toEqual([]);
    expect((await readdir(lake)).filter((f) => f === OUT_DIR_LOCK_FILE)).toEqual([]);
    const files = await readdir(lake, { recursive: true });
    expect(files.map(String).filter((f) => f.split(path.sep).includes('_staging'))).toEqual([]);
  }, 180_000);

  it('refuses at once, exit 1, naming the holder, a second run into a lake another live run holds', async () => {
    // Prepare: the lake held by a live process (this one).
    const lake = path.join(workDir(), 'held');
    await mkdir(lake);
    await writeFile(path.join(lake, OUT_DIR_LOCK_FILE), `${process.pid}\n`);

    // Act
    const run = await runCli(['--input', '{"date":"2026-11-20"}', '--out', lake], {
      script: SCRIPT,
      timeoutMs: 60_000,
    });

    // Assess
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(String(process.pid));
    expect(run.stderr).not.toMatch(/^Plan$/m);
  });
});
