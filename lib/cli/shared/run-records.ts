import { type ObjectStore, readObject } from '../../stores';
import {
  type HeldReportPartition,
  heldReportPartitions,
  parseRunRecord,
  parseRunRecordKey,
  type RunRecord,
  runRecordsPrefix,
} from '../../workflow';

/**
 * Every partition held by the runs whose records are `keys`, read with `read`, by day:
 * Finalize's output travels in the state and lists only the first ones; the run records
 * list them all. Undefined when a record cannot be read (then keep Finalize's list).
 */
export async function heldInRunRecords(
  keys: readonly string[],
  read: (key: string) => Promise<string>,
): Promise<HeldReportPartition[] | undefined> {
  const records = [];
  for (const key of keys) records.push(parseRunRecord(await read(key).catch(() => '')));
  return heldInRecords(records);
}

/** {@link heldInRunRecords} of records already parsed (parseRunRecord: a string is why one could not be). */
export function heldInRecords(records: readonly (RunRecord | string)[]): HeldReportPartition[] | undefined {
  const jobs = [];
  for (const record of records) {
    if (typeof record === 'string') return undefined;
    jobs.push(...(record.jobs ?? []));
  }
  return heldReportPartitions(jobs);
}

/**
 * The newest `limit` run records of a lake, every tenant's or `tenant`'s (its
 * `runs/tenant=<t>/`): keys are listed (cheap), then records are read from the newest dates
 * back until `limit` are in hand, so a long history is not read whole. A record that cannot
 * be read is passed to `onUnreadable` and skipped: one damaged record must not hide the others.
 */
export async function latestRunRecords(
  location: { store: ObjectStore; prefix: string },
  limit: number,
  onUnreadable: (key: string, reason: string) => void,
  tenant?: string,
): Promise<RunRecord[]> {
  const byDate = new Map<string, string[]>();
  for await (const info of location.store.list(runRecordsPrefix(location.prefix, tenant))) {
    const parts = parseRunRecordKey(info.key);
    if (parts === undefined) continue;
    const keys = byDate.get(parts.dt) ?? [];
    keys.push(info.key);
    byDate.set(parts.dt, keys);
  }
  const records: RunRecord[] = [];
  for (const dt of [...byDate.keys()].sort().reverse()) {
    if (records.length >= limit) break;
    for (const key of byDate.get(dt) ?? []) {
      const record = parseRunRecord(new TextDecoder().decode(await readObject(location.store, key)));
      if (typeof record === 'string') onUnreadable(key, record);
      else records.push(record);
    }
  }
  return records.sort((a, b) => (b.startedAt ?? '').localeCompare(a.startedAt ?? '')).slice(0, limit);
}
