import { readdir, readFile } from 'node:fs/promises';

/**
 * The ids of this process's own child processes (Linux: read from /proc; elsewhere none can
 * be listed, so none). A local export run in-process starts the functions' processes as
 * children of the test process: a test that runs one checks, afterwards, that none is left
 * beyond those it found before.
 */
export async function childPids(): Promise<Set<number>> {
  if (process.platform !== 'linux') return new Set();
  const pids = new Set<number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => undefined);
    if (stat === undefined) continue;
    // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // A zombie has ended; it only waits to be reaped.
    if (Number(ppid) === process.pid && state !== 'Z') pids.add(Number(entry));
  }
  return pids;
}

/** The children of {@link childPids} now that were not in `before`, as `pid command line`. */
export async function childrenLeft(before: ReadonlySet<number>): Promise<string[]> {
  const left: string[] = [];
  for (const pid of await childPids()) {
    if (before.has(pid)) continue;
    const command = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    left.push(`${pid} ${command.replaceAll('\0', ' ').trim()}`);
  }
  return left;
}
