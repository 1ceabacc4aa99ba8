import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUT_DIR_LOCK_FILE } from '../../../lib/cli/shared/out-dir-lock';
import { processStartTime } from '../../../lib/stores/process-identity';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const RACER = path.join('test', 'cli', 'shared', 'out-dir-lock-racer.ts');
const RACERS = 3;
const TRIALS = 100;

interface Answer {
  trial: number;
  pid: number;
  held: boolean;
  shared?: boolean;
  from?: string;
  to?: string;
  outcome?: string;
}

/** A racer in a process group of its own (tsx's helper included), answering over IPC. */
interface Racer {
  child: ChildProcess;
  answers: Answer[];
  waiting?: (() => void) | undefined;
}

function startRacer(): Promise<Racer> {
  const child = spawn(process.execPath, ['--import', 'tsx', RACER], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    detached: true,
  });
  const racer: Racer = { child, answers: [] };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('racer did not start in 30 s')), 30_000);
    child.once('exit', (code) => reject(new Error(`racer exited (${code}) before it was ready`)));
    child.on('message', (m: Answer | { ready: true }) => {
      if ('ready' in m) {
        clearTimeout(timer);
        resolve(racer);
        return;
      }
      racer.answers.push(m);
      racer.waiting?.();
    });
  });
}

async function stopRacer(child: ChildProcess): Promise<void> {
  const exited = child.exitCode !== null || child.signalCode !== null;
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // the group is gone already
  }
  if (!exited) await once(child, 'exit');
}

/** The answer of `racer` to `trial` (bounded wait). */
function answerOf(racer: Racer, trial: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer to trial ${trial} in 10 s`)), 10_000);
    const check = () => {
      const found = racer.answers.find((a) => a.trial === trial);
      if (found === undefined) return;
      clearTimeout(timer);
      racer.waiting = undefined;
      resolve(found);
    };
    racer.waiting = check;
    check();
  });
}

describe('acquireOutDirLock: three processes taking over one stale lock', () => {
  let work: string;
  let racers: Racer[] = [];
  let deadPid: number;

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'out-lock-race-'));
    deadPid = spawnSync(process.execPath, ['-e', '0']).pid as number;
    const started = await Promise.allSettled(Array.from({ length: RACERS }, startRacer));
    racers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }, 60_000);

  afterAll(async () => {
    await Promise.all(racers.map((r) => stopRacer(r.child)));
    await rm(work, { recursive: true, force: true });
  });

  /** The stale lock of a trial: an older version's file, or an entry of an ended or replaced process. */
  async function staleLock(outDir: string, trial: number): Promise<void> {
    const lock = path.join(outDir, OUT_DIR_LOCK_FILE);
    const ownStart = processStartTime(process.pid);
    // Half the trials an older version's file (the kind an older version raced on), half an entry.
    const kind = trial % 2 === 0 ? 0 : trial % 4 === 1 ? 1 : 2;
    if (kind === 0 || (kind === 2 && ownStart === undefined)) {
      await mkdir(outDir, { recursive: true });
      await writeFile(lock, `${deadPid}\n`);
      return;
    }
    await mkdir(lock, { recursive: true });
    // kind 1: a process that has ended; kind 2: a live pid (this one) started at another time.
    const entry =
      kind === 1
        ? { host: hostname(), pid: deadPid, since: Date.now() - 60_000 }
        : {
            host: hostname(),
            pid: process.pid,
            start: String(Number(ownStart) + 1),
            since: Date.now() - 60_000,
          };
    await writeFile(path.join(lock, `${entry.pid}-stale.held`), JSON.stringify(entry));
  }

  it('never lets two hold it at once over 100 trials, and one always gets it', async () => {
    const overlaps: string[] = [];
    const problems: string[] = [];
    let holds = 0;
    let trialsWithoutHolder = 0;

    for (let trial = 0; trial < TRIALS; trial++) {
      // Prepare
      const outDir = path.join(work, `lake-${trial}`);
      await staleLock(outDir, trial);
      const marker = path.join(work, `holding-${trial}`);
      const atMs = performance.timeOrigin + performance.now() + 40;

      // Act
      for (const r of racers) r.child.send({ trial, outDir, marker, atMs, holdMs: 15 });
      const answers = await Promise.all(racers.map((r) => answerOf(r, trial)));

      // Assess (collected, reported below)
      const held = answers.filter((a) => a.held);
      holds += held.length;
      if (held.length === 0) trialsWithoutHolder++;
      for (const a of answers) {
        if (a.shared) overlaps.push(`trial ${trial}: pid ${a.pid} held while another held (marker taken)`);
        if (!a.held && a.outcome !== 'locked') problems.push(`trial ${trial}: pid ${a.pid} ${a.outcome}`);
      }
      for (let i = 0; i < held.length; i++) {
        for (let j = i + 1; j < held.length; j++) {
          const [x, y] = [held[i] as Answer, held[j] as Answer];
          if (
            BigInt(x.from as string) < BigInt(y.to as string) &&
            BigInt(y.from as string) < BigInt(x.to as string)
          )
            overlaps.push(`trial ${trial}: pids ${x.pid} and ${y.pid} held at once`);
        }
      }
    }

    expect(overlaps).toEqual([]);
    expect(problems).toEqual([]);
    expect(trialsWithoutHolder).toBe(0);
    expect(holds).toBeGreaterThanOrEqual(TRIALS);
  }, 60_000);
});
