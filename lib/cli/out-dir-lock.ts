import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { processAlive } from '../local/process-alive';

export const OUT_DIR_LOCK_ERROR_CODES = {
  /** Another live process holds `<out>/.report-export.lock`. */
  locked: 'CLI_OUT_DIR_LOCKED',
} as const;

/** The lock file's name under the data lake root. */
export const OUT_DIR_LOCK_FILE = '.report-export.lock';

/** Another report-export is writing the same data lake: exit 1 at once rather than race it. */
export class OutDirLockedError extends Error {
  override readonly name = 'OutDirLockedError';
  readonly code = OUT_DIR_LOCK_ERROR_CODES.locked;
  readonly pid: number | null;
  constructor(outDir: string, pid: number | null) {
    super(`another report-export is writing ${outDir} (pid ${pid ?? 'unknown'})`);
    this.pid = pid;
  }
}

/** A held lock; `release()` removes the file (only once, and only if it is still ours). */
export interface OutDirLock {
  file: string;
  release(): Promise<void>;
}

async function readPid(file: string): Promise<number | null | 'gone'> {
  try {
    const text = (await fs.readFile(file, 'utf8')).trim();
    return /^\d+$/.test(text) ? Number(text) : null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw error;
  }
}

/**
 * Takes `<outDir>/.report-export.lock` by exclusive create, holding this process's id. Two
 * runs into one lake would lease-fight over the same partitions and report each other's
 * work; the loser is told up front instead. A lock whose process is dead is stale and is
 * taken over (a crash, a SIGKILL). A file with no readable pid is a writer still between
 * create and write: treated as held.
 */
export async function acquireOutDirLock(outDir: string): Promise<OutDirLock> {
  await fs.mkdir(outDir, { recursive: true });
  const file = path.join(outDir, OUT_DIR_LOCK_FILE);
  // Bounded: one takeover of a stale lock, then a second try; a third contender loses.
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await fs.open(file, 'wx');
      try {
        await handle.writeFile(`${process.pid}\n`);
      } finally {
        await handle.close();
      }
      let released = false;
      return {
        file,
        release: async () => {
          if (released) return;
          released = true;
          if ((await readPid(file)) === process.pid) await fs.rm(file, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await readPid(file);
    if (holder === 'gone') continue;
    if (holder === null || processAlive(holder)) throw new OutDirLockedError(outDir, holder);
    // Stale: rename first so two takers cannot both remove a fresh lock of a third.
    const stale = `${file}.${process.pid}.stale`;
    await fs.rename(file, stale).catch(() => undefined);
    await fs.rm(stale, { force: true });
  }
  throw new OutDirLockedError(outDir, null);
}
