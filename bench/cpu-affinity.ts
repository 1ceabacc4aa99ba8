/**
 * Pins a contestant's process (and so its worker threads) to a set of CPUs with util-linux's
 * `taskset`, as a stand-in for the vCPUs a Lambda memory size buys: one CPU is what
 * ExportResults gets at 1,769 MB, two at 3,538 MB.
 */
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

/** A command line: the program and its arguments. */
export interface CommandLine {
  command: string;
  args: string[];
}

/** Whether `taskset` runs here (util-linux; absent on macOS and in some slim images). */
export function tasksetAvailable(): boolean {
  const probe = spawnSync('taskset', ['--version'], { stdio: 'ignore', timeout: 10_000 });
  return probe.error === undefined && probe.status === 0;
}

/**
 * The CPU list of the first `cpus` CPUs (`0` or `0,1`), or undefined when this machine
 * has fewer: a run "on two cores" on a one-core machine would be mislabelled.
 */
export function firstCpus(cpus: number): string | undefined {
  if (cpus > availableParallelism()) return undefined;
  return Array.from({ length: cpus }, (_, i) => String(i)).join(',');
}

/** `taskset -c <cpuList> <command> <args...>`. */
export function pinned(cpuList: string, line: CommandLine): CommandLine {
  return { command: 'taskset', args: ['-c', cpuList, line.command, ...line.args] };
}
