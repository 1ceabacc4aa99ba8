import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { recoverDeadStaging, type StagingRecovery, stagingArea } from '../export';
import { describeProcess, LocalDirectoryStore } from '../stores';

export type { StagingRecovery } from '../export';

/**
 * Recovers the staging a dead local run left in the lake at `lakeDir` (a `kill -9`, a crash
 * during its publish): the partitions it was promoting are rolled back from its backups, and
 * its staging directory goes, with the temporary files of writes the kill cut short there
 * and in those partitions (recover-staging.ts). Staging of a live process, of another host
 * or without an owner record is left and reported. Call it with the lake's out-dir lock
 * held, before a run.
 */
export async function sweepDeadStaging(lakeDir: string): Promise<StagingRecovery[]> {
  const results = await recoverDeadStaging(new LocalDirectoryStore(lakeDir), '');
  // The store's deletes prune the directories they empty; should anything else be left in
  // a recovered root (nothing the store wrote), it goes too.
  for (const r of results) {
    if (r.outcome === 'recovered')
      await fs.rm(path.join(lakeDir, ...r.root.split('/')), { recursive: true, force: true });
  }
  if (results.some((r) => r.outcome === 'recovered')) {
    await fs.rmdir(path.join(lakeDir, stagingArea(''))).catch(() => undefined);
  }
  return results;
}

/** One line about a recovery, for a warning or the progress log. */
export function describeStagingRecovery(r: StagingRecovery, lakeDir: string): string {
  const dir = path.join(lakeDir, ...r.root.split('/'));
  const by = r.owner === undefined ? 'no process' : describeProcess(r.owner);
  switch (r.outcome) {
    case 'recovered': {
      const restored =
        r.restored.length === 0
          ? 'no partition had been replaced yet'
          : `${r.restored.length} partition(s) it had begun to replace restored from its backups`;
      const superseded =
        r.superseded.length === 0
          ? ''
          : `, ${r.superseded.length} published by a later run since left as they are`;
      return `staging of run ${r.runId} left by ${by}, which has ended: ${restored}${superseded}; ${dir} deleted`;
    }
    case 'failed':
      return `staging of run ${r.runId} left by ${by}, which has ended, could not be recovered (${errorText(r.error)}): ${dir} and the backups in it are kept; the next run tries again`;
    case 'other-host':
      return `staging ${dir} belongs to ${by}, another machine: left (delete it once that run is over)`;
    case 'unowned':
      return `staging ${dir} names no process (an older version's?): left (delete it if no run is using it)`;
  }
}

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}
