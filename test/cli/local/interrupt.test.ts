import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../support/cli-process';
import { filesUnder } from '../../support/files';
import { useCliProcesses, useTempDir } from '../../support/test-scope';

describe('npm start (interrupted)', () => {
  const workDir = useTempDir('start-interrupt-');
  const processes = useCliProcesses();

  it('exits 130 leaving no lease and no staging, and a re-run succeeds, when sent SIGINT mid-run', async () => {
    // Prepare: every tenant at once (their runs all in flight when interrupted), two windows
    // of a week x five reports each, enough to be mid-run at the first publish.
    const lake = path.join(workDir(), 'lake');
    const state = path.join(workDir(), 'state');
    const args = [
      '--out',
      lake,
      '--secrets-file',
      path.join(state, 'secrets.json'),
      '--from',
      '2026-03-01',
      '--to',
      '2026-03-14',
      '--rows-per-day',
      '1500',
    ];
    const cli = processes.start(args);
    await cli.waitFor(/rows in \d+ partitions published/, { stream: 'stderr', timeoutMs: 90_000 });

    // Act: Ctrl+C goes to the process (not its tsx helper).
    cli.child.kill('SIGINT');
    const code = await cli.exited;

    // Assess
    expect(code).toBe(130);
    expect(cli.stderr()).toMatch(/interrupted: partitions already published stay; run again to finish/);
    expect(cli.stdout()).not.toMatch(/Exported/);
    expect((await filesUnder(path.join(state, 'leases'))).filter((f) => f.endsWith('.lease'))).toEqual([]);
    expect((await filesUnder(lake)).filter((f) => f.split(path.sep).includes('_staging'))).toEqual([]);
    expect((await filesUnder(lake)).filter((f) => f.endsWith('.lock'))).toEqual([]);

    // Act: an immediate re-run finishes the job.
    const again = await runCli(args, { timeoutMs: 120_000 });

    // Assess
    expect(again.stderr).not.toMatch(/export failed|another report-export/);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/Exported [\d,]+ rows of 15 report\(s\) of 3 tenant\(s\)/);
    expect(
      again.stdout.match(/: exported [\d,]+ rows of 5 report\(s\), 2026-03-01 \.\. 2026-03-14$/gm),
    ).toHaveLength(3);
  }, 240_000);
});
