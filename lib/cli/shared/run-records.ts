import { type HeldReportPartition, heldReportPartitions, parseRunRecord } from '../../workflow';

/**
 * Every partition held by the runs whose records are `keys`, read with `read`, by day:
 * Finalize's output travels in the state and lists only the first ones; the run records
 * list them all. Undefined when a record cannot be read (then keep Finalize's list).
 */
export async function heldInRunRecords(
  keys: readonly string[],
  read: (key: string) => Promise<string>,
): Promise<HeldReportPartition[] | undefined> {
  const jobs = [];
  for (const key of keys) {
    const record = parseRunRecord(await read(key).catch(() => ''));
    if (typeof record === 'string') return undefined;
    jobs.push(...(record.jobs ?? []));
  }
  return heldReportPartitions(jobs);
}
