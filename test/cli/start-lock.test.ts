import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  acquireOutDirLock,
  OUT_DIR_LOCK_ERROR_CODES,
  OUT_DIR_LOCK_FILE,
  OutDirLockedError,
} from '../../lib/cli/out-dir-lock';
import { runCli } from '../support/cli-process';

/** The id of a process that has ended (a child run to completion, so no longer alive). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '0']);
  return child.pid as number;
}

describe('acquireOutDirLock', () => {
  let work: string;

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'out-lock-'));
  });

  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('writes its pid and removes the file on release when the directory is free', async () => {
    // Prepare
    const out = path.join(work, 'free');

    // Act
    const lock = await acquireOutDirLock(out);
    const held = await readFile(path.join(out, OUT_DIR_LOCK_FILE), 'utf8');
    await lock.release();

    // Assess
    expect(held.trim()).toBe(String(process.pid));
    await expect(stat(path.join(out, OUT_DIR_LOCK_FILE))).rejects.toThrow(/ENOENT/);
  });

  it('throws OutDirLockedError naming the holder when a live process holds the lock', async () => {
    // Prepare
    const out = path.join(work, 'held');
    const lock = await acquireOutDirLock(out);

    // Act
    const second = await acquireOutDirLock(out).catch((e: unknown) => e);
    await lock.release();

    // Assess
    expect(second).toBeInstanceOf(OutDirLockedError);
    expect((second as OutDirLockedError).code).toBe(OUT_DIR_LOCK_ERROR_CODES.locked);
    expect((second as OutDirLockedError).name).toBe('OutDirLockedError');
    expect((second as Error).message).toBe(`another report-export is writing ${out} (pid ${process.pid})`);
  });

  it('takes the lock over when the process that held it is dead', async () => {
    // Prepare
    const out = path.join(work, 'stale');
    await mkdir(out, { recursive: true });
    await writeFile(path.join(out, OUT_DIR_LOCK_FILE), `${deadPid()}\n`);

    // Act
    const lock = await acquireOutDirLock(out);
    const held = await readFile(path.join(out, OUT_DIR_LOCK_FILE), 'utf8');
    await lock.release();

    // Assess
    expect(held.trim()).toBe(String(process.pid));
  });
});

describe('npm start (another run writes the same --out)', () => {
  let work: string;

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'start-lock-'));
  });

  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('exits 1 at once naming the other process when the lake is locked by a live one', async () => {
    // Prepare: this test process stands for the other run.
    const lake = path.join(work, 'lake');
    await mkdir(lake, { recursive: true });
    await writeFile(path.join(lake, OUT_DIR_LOCK_FILE), `${process.pid}\n`);

    // Act
    const run = await runCli(
      ['--out', lake, '--secrets-file', path.join(work, 'secrets.json'), '--rows-per-day', '10'],
      { timeoutMs: 60_000 },
    );

    // Assess: refused before signing in, and the other run's lock is left alone.
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`another report-export is writing ${lake} (pid ${process.pid})`);
    expect(run.stderr).toContain('[CLI_OUT_DIR_LOCKED]');
    expect(run.stderr).not.toMatch(/signed in|requested/);
    expect(run.stdout).toBe('');
    expect((await readFile(path.join(lake, OUT_DIR_LOCK_FILE), 'utf8')).trim()).toBe(String(process.pid));
  });
});
