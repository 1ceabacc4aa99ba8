import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  acquireOutDirLock,
  OUT_DIR_LOCK_ERROR_CODES,
  OUT_DIR_LOCK_FILE,
  OutDirLockedError,
} from '../../../lib/cli/shared/out-dir-lock';
import { processStartTime } from '../../../lib/stores/process-identity';
import { runCli } from '../../support/cli-process';
import { useTempDir } from '../../support/test-scope';

/** The id of a process that has ended (a child run to completion, so no longer alive). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '0']);
  return child.pid as number;
}

describe('acquireOutDirLock', () => {
  const workDir = useTempDir('out-lock-');
  const children: ChildProcess[] = [];

  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await once(child, 'exit');
      }
    }
  });

  /** An idle node process, alive until the test ends. */
  async function liveProcess(): Promise<number> {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    children.push(child);
    await once(child, 'spawn');
    return child.pid as number;
  }

  it('names this process (host, pid, start time) while held and leaves nothing on release', async () => {
    // Prepare
    const out = path.join(workDir(), 'free');

    // Act
    const lock = await acquireOutDirLock(out);
    const entries = await readdir(path.join(out, OUT_DIR_LOCK_FILE));
    const held = JSON.parse(await readFile(lock.file, 'utf8'));
    await lock.release();

    // Assess
    expect(entries.sort()).toEqual([
      expect.stringMatching(new RegExp(`^${process.pid}-[0-9a-f]+\\.held$`)),
      expect.stringMatching(new RegExp(`^${process.pid}-[0-9a-f]+\\.want$`)),
    ]);
    expect(held).toMatchObject({ host: hostname(), pid: process.pid });
    if (process.platform === 'linux') expect(held.start).toBe(processStartTime(process.pid));
    await expect(stat(path.join(out, OUT_DIR_LOCK_FILE))).rejects.toThrow(/ENOENT/);
  });

  it('throws OutDirLockedError naming the holder and the file to delete when a live process holds it', async () => {
    // Prepare
    const out = path.join(workDir(), 'held');
    const lock = await acquireOutDirLock(out);

    // Act
    const second = await acquireOutDirLock(out).catch((e: unknown) => e);
    await lock.release();

    // Assess
    expect(second).toBeInstanceOf(OutDirLockedError);
    expect((second as OutDirLockedError).code).toBe(OUT_DIR_LOCK_ERROR_CODES.locked);
    expect((second as OutDirLockedError).name).toBe('OutDirLockedError');
    expect((second as OutDirLockedError).pid).toBe(process.pid);
    expect((second as OutDirLockedError).file).toBe(lock.file);
    expect((second as Error).message).toMatch(
      new RegExp(
        `^another report-export is writing ${out} \\(pid ${process.pid}; since \\d{4}-\\d\\d-\\d\\dT`,
      ),
    );
    expect((second as Error).message).toContain(
      `Lock file ${lock.file}: if that process is gone, delete the file and run again`,
    );
  });

  it("takes over an older version's lock file when the process it names is dead", async () => {
    // Prepare
    const out = path.join(workDir(), 'stale');
    await mkdir(out, { recursive: true });
    await writeFile(path.join(out, OUT_DIR_LOCK_FILE), `${deadPid()}\n`);

    // Act
    const lock = await acquireOutDirLock(out);
    const held = JSON.parse(await readFile(lock.file, 'utf8'));
    await lock.release();

    // Assess
    expect(held.pid).toBe(process.pid);
  });

  it("takes over an older version's lock file whose pid now names a process started after it was written", async () => {
    // Prepare: a live process, and a lock file written an hour before it started (its pid reused).
    if (processStartTime(process.pid) === undefined) return; // Linux only: no start time elsewhere
    const out = path.join(workDir(), 'reused');
    await mkdir(out, { recursive: true });
    const file = path.join(out, OUT_DIR_LOCK_FILE);
    await writeFile(file, `${await liveProcess()}\n`);
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(file, hourAgo, hourAgo);

    // Act
    const lock = await acquireOutDirLock(out);
    await lock.release();

    // Assess
    expect(lock.file.startsWith(path.join(file, `${process.pid}-`))).toBe(true);
  });

  it('takes over an entry whose pid is alive but started at another time (a reused pid)', async () => {
    // Prepare
    const pid = await liveProcess();
    const start = processStartTime(pid);
    if (start === undefined) return; // Linux only
    const out = path.join(workDir(), 'reused-entry');
    const dir = path.join(out, OUT_DIR_LOCK_FILE);
    await mkdir(dir, { recursive: true });
    const entry = { host: hostname(), pid, start: String(Number(start) + 7), since: Date.now() };
    await writeFile(path.join(dir, `${pid}-old.held`), JSON.stringify(entry));

    // Act
    const lock = await acquireOutDirLock(out);
    const left = await readdir(dir);
    await lock.release();

    // Assess
    expect(left.filter((f) => f.startsWith(`${pid}-`))).toEqual([]);
  });

  it.each([
    { what: 'an empty lock file of an older version', make: (file: string) => writeFile(file, '') },
    {
      what: 'an unreadable entry',
      make: async (file: string) => {
        await mkdir(file);
        await writeFile(path.join(file, 'x.held'), '{"pi');
      },
    },
  ])(
    'waits 2 s for $what (it may be being written), naming it, then takes it over',
    async ({ what, make }) => {
      // Prepare
      const out = path.join(workDir(), what.replaceAll(' ', '-'));
      await mkdir(out, { recursive: true });
      const file = path.join(out, OUT_DIR_LOCK_FILE);
      await make(file);

      // Act: at once, then as if 3 s later.
      const fresh = await acquireOutDirLock(out).catch((e: unknown) => e);
      const old = new Date(Date.now() - 3_000);
      await utimes(file, old, old);
      await utimes((await stat(file)).isDirectory() ? path.join(file, 'x.held') : file, old, old);
      const later = await acquireOutDirLock(out);
      await later.release();

      // Assess
      expect(fresh).toBeInstanceOf(OutDirLockedError);
      expect((fresh as Error).message).toContain('pid unknown: the lock file is empty or unreadable');
      expect((fresh as Error).message).toContain('if that process is gone, delete the file');
      expect((fresh as OutDirLockedError).file.startsWith(file)).toBe(true);
    },
  );

  it('does not touch a lock held on another host, and names the host', async () => {
    // Prepare
    const out = path.join(workDir(), 'other-host');
    const dir = path.join(out, OUT_DIR_LOCK_FILE);
    await mkdir(dir, { recursive: true });
    const entry = path.join(dir, '4242-remote.held');
    await writeFile(entry, JSON.stringify({ host: 'build-agent-7', pid: 4242, since: Date.now() - 60_000 }));

    // Act
    const error = await acquireOutDirLock(out).catch((e: unknown) => e);

    // Assess
    expect((error as Error).message).toContain(
      `another report-export is writing ${out} (pid 4242 on build-agent-7;`,
    );
    expect((error as Error).message).toContain(
      `Lock file ${entry}: if that process is gone, delete the file`,
    );
    expect(await readdir(dir)).toEqual(['4242-remote.held']);
  });
});

describe('npm start (another run writes the same --out)', () => {
  const workDir = useTempDir('start-lock-');

  it('exits 1 at once naming the other process when the lake is locked by a live one', async () => {
    // Prepare: this test process stands for the other run.
    const lake = path.join(workDir(), 'lake');
    await mkdir(lake, { recursive: true });
    await writeFile(path.join(lake, OUT_DIR_LOCK_FILE), `${process.pid}\n`);

    // Act
    const run = await runCli(
      ['--out', lake, '--secrets-file', path.join(workDir(), 'secrets.json'), '--rows-per-day', '10'],
      { timeoutMs: 60_000 },
    );

    // Assess: refused before signing in, and the other run's lock is left alone.
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`another report-export is writing ${lake} (pid ${process.pid};`);
    expect(run.stderr).toContain(`Lock file ${path.join(lake, OUT_DIR_LOCK_FILE)}: if that process is gone`);
    expect(run.stderr).toContain('[CLI_OUT_DIR_LOCKED]');
    expect(run.stderr).not.toMatch(/signed in|requested/);
    expect(run.stdout).toBe('');
    expect((await readFile(path.join(lake, OUT_DIR_LOCK_FILE), 'utf8')).trim()).toBe(String(process.pid));
  });

  it('refuses run --out <dir> too, exit 1, naming the other process, before reading the login', async () => {
    // Prepare: this test process stands for the other run; no login exists.
    const lake = path.join(workDir(), 'run-lake');
    await mkdir(lake, { recursive: true });
    await writeFile(path.join(lake, OUT_DIR_LOCK_FILE), `${process.pid}\n`);

    // Act
    const run = await runCli(
      [
        'run',
        '--time-zone',
        'Europe/London',
        '--date',
        '2026-11-20',
        '--out',
        lake,
        '--secret-file',
        path.join(workDir(), 'no-login.json'),
      ],
      { timeoutMs: 60_000 },
    );

    // Assess
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`another report-export is writing ${lake} (pid ${process.pid};`);
    expect(run.stderr).toContain('[CLI_OUT_DIR_LOCKED]');
    expect((await readFile(path.join(lake, OUT_DIR_LOCK_FILE), 'utf8')).trim()).toBe(String(process.pid));
  });
});
