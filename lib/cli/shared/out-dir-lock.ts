import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import {
  currentProcess,
  type ProcessIdentity,
  parseProcessIdentity,
  processAlive,
  processGone,
  processStartedAtMs,
} from '../../stores';

export const OUT_DIR_LOCK_ERROR_CODES = {
  /** Another live process holds `<out>/.report-export.lock`. */
  locked: 'CLI_OUT_DIR_LOCKED',
} as const;

/**
 * The lock under the data lake root: a directory holding one entry file per process that
 * holds or wants the lock. Older versions wrote a regular file of that name holding a pid:
 * such a file is still honoured (and taken over once its process is gone).
 */
export const OUT_DIR_LOCK_FILE = '.report-export.lock';

/** An empty or unreadable lock file may be a writer's between create and write: stale only after this. */
const UNREADABLE_GRACE_MS = 2_000;
/** How long contenders arriving together may take to settle who holds the lock. */
const CONTEND_MS = 2_000;
/** A temporary entry older than this is a crashed writer's (it lives for microseconds). */
const TEMP_STALE_MS = 10_000;

/** What a lock file says about its holder. */
interface LockHolder {
  /** The file naming the holder: what to delete if it is gone. */
  file: string;
  /** The holder's process; undefined when the file is empty or unreadable. */
  process?: ProcessIdentity;
  /** When it took (or asked for) the lock, ms since the epoch (the file's mtime when unrecorded). */
  since: number;
  /** Holding it (`held`), or still settling with other contenders (`want`). */
  state: 'held' | 'want' | 'legacy';
}

/** Another report-export is writing the same data lake: exit 1 at once rather than race it. */
export class OutDirLockedError extends Error {
  override readonly name = 'OutDirLockedError';
  readonly code = OUT_DIR_LOCK_ERROR_CODES.locked;
  readonly pid: number | null;
  /** The lock file naming the holder (delete it if that process is gone). */
  readonly file: string;
  readonly host: string | null;
  constructor(outDir: string, holder: LockHolder) {
    const p = holder.process;
    const me = currentProcess().host;
    const who =
      p === undefined
        ? 'pid unknown: the lock file is empty or unreadable, perhaps still being written'
        : `pid ${p.pid}${p.host === me ? '' : ` on ${p.host}`}`;
    super(
      `another report-export is writing ${outDir} (${who}; since ${new Date(holder.since).toISOString()}). ` +
        `Lock file ${holder.file}: if that process is gone, delete the file and run again`,
    );
    this.pid = p?.pid ?? null;
    this.host = p?.host ?? null;
    this.file = holder.file;
  }
}

/** A held lock; `release()` removes this process's entries (only once). */
export interface OutDirLock {
  /** This process's `.held` entry in the lock directory. */
  file: string;
  release(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const code = (error: unknown) => (error as NodeJS.ErrnoException).code;

/**
 * Takes `<outDir>/.report-export.lock`. Two runs into one lake would lease-fight over the
 * same partitions and report each other's work; the loser is told up front instead, with
 * the holder and the file to delete should it be gone.
 *
 * The lock is a directory of entries, one per contender: `<pid>-<random>.want`, a name
 * unique to its process, written aside and renamed in (so never seen half written),
 * holding its host, pid and start time. A process holds the lock when, after its entry
 * appeared, it lists the directory and finds no other live entry; it then adds
 * `<pid>-<random>.held` beside it, so that others fail at once rather than wait. Of two
 * contenders, the later to list sees the other's entry, so at most one holds. An entry is
 * never renamed while it must be seen (a listing may miss a name being renamed), and is
 * removed only by its owner, or by anyone once its process is gone (on this host: the pid
 * has ended or names a process started at another time); so taking over after a crash
 * needs no age guess and cannot remove a fresh lock. Contenders arriving together settle
 * it by age: the oldest entry stays, the others step back and retry, and after 2 s
 * without settling they give up (exit 1).
 */
export async function acquireOutDirLock(outDir: string): Promise<OutDirLock> {
  await fs.mkdir(outDir, { recursive: true });
  const dir = path.join(outDir, OUT_DIR_LOCK_FILE);
  const me = currentProcess();
  const id = `${me.pid}-${randomBytes(6).toString('hex')}`;
  const deadline = Date.now() + CONTEND_MS;
  for (;;) {
    await clearLegacyLock(outDir, dir);
    const since = Date.now();
    const record = `${JSON.stringify({ ...me, since })}\n`;
    const want = await addEntry(dir, `${id}.want`, record);
    if (want === undefined) {
      // The directory was being removed (a release) or replaced by an old version's file.
      if (Date.now() > deadline) throw new Error(`Could not create the lock ${dir}`);
      continue;
    }
    const settled = await contend(dir, id, { since, deadline });
    if (settled === 'held') {
      const held = await addEntry(dir, `${id}.held`, record);
      if (held === undefined) throw new Error(`The lock ${dir} was removed while it was being taken`);
      return lockOf(dir, [held, want]);
    }
    await fs.rm(want, { force: true });
    if (settled.state === 'held' || settled.state === 'legacy' || Date.now() > deadline) {
      throw new OutDirLockedError(outDir, settled);
    }
    await sleep(10 + Math.random() * 30);
  }
}

/**
 * Lists the other live entries (removing those of ended processes) until this one is alone
 * ('held'), another holds or is older (it is returned: this one steps back), or time is up.
 */
async function contend(
  dir: string,
  id: string,
  me: { since: number; deadline: number },
): Promise<'held' | LockHolder> {
  for (;;) {
    const others = await liveEntries(dir, id);
    if (others.length === 0) return 'held';
    const holding = others.find((o) => o.state === 'held');
    if (holding !== undefined) return holding;
    const older = others.find((o) => o.since < me.since || (o.since === me.since && o.id < id));
    if (older !== undefined || Date.now() > me.deadline) return older ?? (others[0] as LockHolder);
    // The oldest: the others step back; wait for them to.
    await sleep(5 + Math.random() * 10);
  }
}

/** Writes an entry aside and renames it in; undefined when the directory went away meanwhile. */
async function addEntry(dir: string, name: string, text: string): Promise<string | undefined> {
  try {
    await fs.mkdir(dir, { recursive: true });
    const temp = path.join(dir, `.${name}.tmp`);
    const entry = path.join(dir, name);
    await fs.writeFile(temp, text, { mode: 0o644 });
    await fs.rename(temp, entry);
    return entry;
  } catch (error) {
    if (code(error) === 'ENOENT' || code(error) === 'ENOTDIR' || code(error) === 'EEXIST') return undefined;
    throw error;
  }
}

const ENTRY = /^(.+)\.(want|held)$/;

/** The contenders of the lock directory other than `mine`, after removing those whose process is gone. */
async function liveEntries(dir: string, mine: string): Promise<(LockHolder & { id: string })[]> {
  const names = await fs.readdir(dir).catch((error: unknown) => {
    if (code(error) === 'ENOENT') return [] as string[];
    throw error;
  });
  const byId = new Map<string, string[]>();
  for (const name of names) {
    if (name.endsWith('.tmp')) {
      const file = path.join(dir, name);
      const stat = await fs.stat(file).catch(() => undefined);
      if (stat !== undefined && Date.now() - stat.mtimeMs > TEMP_STALE_MS) await fs.rm(file, { force: true });
      continue;
    }
    const m = ENTRY.exec(name);
    if (m === null || m[1] === mine) continue;
    byId.set(m[1] as string, [...(byId.get(m[1] as string) ?? []), name]);
  }
  const live: (LockHolder & { id: string })[] = [];
  for (const [id, files] of byId) {
    const held = files.find((f) => f.endsWith('.held'));
    const entry = await readEntry(path.join(dir, held ?? (files[0] as string)), held ? 'held' : 'want');
    if (entry === 'gone') continue;
    if (isStale(entry)) {
      // These names are its process's alone: no live contender's entry can be removed here.
      for (const f of files) await fs.rm(path.join(dir, f), { force: true });
      continue;
    }
    live.push({ ...entry, id });
  }
  return live;
}

async function readEntry(file: string, state: 'held' | 'want'): Promise<LockHolder | 'gone'> {
  let text: string;
  let mtimeMs: number;
  try {
    [text, { mtimeMs }] = await Promise.all([fs.readFile(file, 'utf8'), fs.stat(file)]);
  } catch (error) {
    if (code(error) === 'ENOENT') return 'gone';
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const owner = parseProcessIdentity(value);
  const since = (value as { since?: unknown } | undefined)?.since;
  return {
    file,
    state,
    since: typeof since === 'number' ? since : mtimeMs,
    ...(owner === undefined ? {} : { process: owner }),
  };
}

/** An entry whose process has ended, or an unreadable one past the grace a writer gets. */
function isStale(entry: LockHolder): boolean {
  if (entry.process === undefined) return Date.now() - entry.since > UNREADABLE_GRACE_MS;
  return processGone(entry.process);
}

/**
 * An older version's lock: a regular file holding a pid. Live: OutDirLockedError. Stale
 * (the pid has ended, or names a process started after the file was written, or the file
 * is empty or unreadable for more than 2 s): removed. Removing it cannot hit a lock of this
 * version, which is a directory (unlink refuses one).
 */
async function clearLegacyLock(outDir: string, file: string): Promise<void> {
  let text: string;
  let mtimeMs: number;
  try {
    const stat = await fs.lstat(file);
    if (stat.isDirectory()) return;
    mtimeMs = stat.mtimeMs;
    text = (await fs.readFile(file, 'utf8')).trim();
  } catch (error) {
    // Gone, or already replaced by a lock of this version (another contender's takeover).
    if (code(error) === 'ENOENT' || code(error) === 'EISDIR') return;
    throw error;
  }
  const pid = /^\d+$/.test(text) ? Number(text) : undefined;
  let stale: boolean;
  if (pid === undefined || pid <= 0) {
    stale = Date.now() - mtimeMs > UNREADABLE_GRACE_MS;
  } else if (!processAlive(pid)) {
    stale = true;
  } else {
    // A pid alive now but started after the file was written is another process (reused).
    const startedAt = processStartedAtMs(pid);
    stale = startedAt !== undefined && startedAt > mtimeMs + 2_000;
  }
  if (!stale) {
    const host = currentProcess().host;
    throw new OutDirLockedError(outDir, {
      file,
      since: mtimeMs,
      state: 'legacy',
      ...(pid === undefined ? {} : { process: { host, pid } }),
    });
  }
  await fs.unlink(file).catch((error: unknown) => {
    if (!['ENOENT', 'EISDIR', 'EPERM'].includes(code(error) ?? '')) throw error;
  });
}

function lockOf(dir: string, files: readonly string[]): OutDirLock {
  let released = false;
  return {
    file: files[0] as string,
    release: async () => {
      if (released) return;
      released = true;
      for (const file of files) await fs.rm(file, { force: true });
      // Only when empty: another contender's entry keeps it.
      await fs.rmdir(dir).catch(() => undefined);
    },
  };
}
