import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * Which process holds something (a lease, a lock), recorded so that a process on the same
 * machine can tell the holder is gone: host, pid and, where the system says it cheaply
 * (Linux: /proc), the process's start time, which tells a reused pid from its first owner.
 */
export interface ProcessIdentity {
  host: string;
  pid: number;
  /** Start time in clock ticks since boot (/proc/<pid>/stat field 22); absent off Linux. */
  start?: string;
}

/**
 * True while a process with this id runs: signal 0 finds it (EPERM: it exists, another
 * user's) and it is not a zombie. A process killed with SIGKILL stays a zombie until its
 * parent reaps it: for a moment after `kill -9` of a process group whose leader died first
 * (its children are re-parented), and for good under a PID 1 that never reaps (a bare
 * container). A zombie holds nothing: it is gone.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return processState(pid) !== 'Z';
}

/** The process's state letter (/proc/<pid>/stat field 3: R, S, D, Z ...), or undefined off Linux or once gone. */
function processState(pid: number): string | undefined {
  const fields = procStatFields(pid);
  return fields?.[0];
}

/** /proc/<pid>/stat from field 3 on (after the command in parentheses, which may hold spaces and ')'). */
function procStatFields(pid: number): string[] | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/**
 * The start time of a process (clock ticks since boot, /proc/<pid>/stat field 22), or
 * undefined off Linux or when it has gone. Two processes that had one pid differ in it.
 */
export function processStartTime(pid: number): string | undefined {
  const start = procStatFields(pid)?.[22 - 3];
  return start !== undefined && /^\d+$/.test(start) ? start : undefined;
}

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux ABI Node runs on.
let bootTimeMs: number | null | undefined;

/** When a process started (ms since the epoch, to within a second), or undefined off Linux. */
export function processStartedAtMs(pid: number): number | undefined {
  const start = processStartTime(pid);
  if (start === undefined) return undefined;
  if (bootTimeMs === undefined) {
    try {
      const m = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
      bootTimeMs = m === null ? null : Number(m[1]) * 1000;
    } catch {
      bootTimeMs = null;
    }
  }
  if (bootTimeMs === null) return undefined;
  return bootTimeMs + (Number(start) * 1000) / CLOCK_TICKS_PER_SECOND;
}

let self: ProcessIdentity | undefined;

/** This process: host, pid and start time (computed once). */
export function currentProcess(): ProcessIdentity {
  if (self === undefined || self.pid !== process.pid) {
    const start = processStartTime(process.pid);
    self = { host: hostname(), pid: process.pid, ...(start === undefined ? {} : { start }) };
  }
  return self;
}

/**
 * True when `owner` is known to have ended: on this host, and its pid is gone or now
 * names a process that started at another time (a reused pid). A process on another host
 * cannot be checked from here: never gone.
 */
export function processGone(owner: ProcessIdentity): boolean {
  if (owner.host !== hostname()) return false;
  if (!processAlive(owner.pid)) return true;
  if (owner.start === undefined) return false;
  const start = processStartTime(owner.pid);
  return start !== undefined && start !== owner.start;
}

/** Reads a recorded identity (JSON fields host, pid, start); undefined when it is not one. */
export function parseProcessIdentity(value: unknown): ProcessIdentity | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.host !== 'string' || !Number.isSafeInteger(v.pid) || (v.pid as number) <= 0) return undefined;
  return {
    host: v.host,
    pid: v.pid as number,
    ...(typeof v.start === 'string' && /^\d+$/.test(v.start) ? { start: v.start } : {}),
  };
}

/** `pid 123 on host-a` (the start time is for machines, not people). */
export function describeProcess(owner: ProcessIdentity): string {
  return `pid ${owner.pid} on ${owner.host}`;
}
