/**
 * A live process's CPU seconds and peak resident set, read from Linux's /proc (what the
 * end-to-end bench needs of the Lambda functions' processes, which lib/local starts and
 * ends itself: read them after the execution, while their environments are still warm).
 *
 * - CPU: utime + stime of /proc/<pid>/stat (every thread of the process, worker threads
 *   included), in clock ticks (USER_HZ, 100 on Linux).
 * - Peak RSS: VmHWM of /proc/<pid>/status, the resident set's high-water mark since exec.
 */
import { readdirSync, readFileSync } from 'node:fs';

const CLOCK_TICKS_PER_SECOND = 100;

export interface ProcStats {
  pid: number;
  /** The command line, NUL-separated arguments split. */
  argv: string[];
  cpuSeconds: number;
  peakRssMb: number;
  rssMb: number;
  /** The CPUs the process may run on (Cpus_allowed_list: `0`, `0-1`). */
  cpusAllowed: string;
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** CPU and memory of a live process, or undefined when it is gone (or this is not Linux). */
export function procStats(pid: number): ProcStats | undefined {
  const stat = read(`/proc/${pid}/stat`);
  const status = read(`/proc/${pid}/status`);
  const cmdline = read(`/proc/${pid}/cmdline`);
  if (stat === undefined || status === undefined || cmdline === undefined) return undefined;
  // The command name (field 2) may hold spaces and parentheses: fields count from the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 (utime, stime) are at 11 and 12 after the state (field 3).
  const ticks = Number(fields[11]) + Number(fields[12]);
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return {
    pid,
    argv: cmdline.split('\0').filter((a) => a !== ''),
    cpuSeconds: Number((ticks / CLOCK_TICKS_PER_SECOND).toFixed(2)),
    peakRssMb: Math.round(kb('VmHWM') / 1024),
    rssMb: Math.round(kb('VmRSS') / 1024),
    cpusAllowed: /^Cpus_allowed_list:\s+(\S+)/m.exec(status)?.[1] ?? '',
  };
}

/** The live child processes of `parent` (every process whose parent pid it is). */
export function childPids(parent: number): number[] {
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const stat = read(`/proc/${name}/stat`);
    if (stat === undefined) continue;
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid === parent) pids.push(Number(name));
  }
  return pids;
}
