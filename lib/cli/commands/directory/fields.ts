import type { DirectoryItemFields } from '../../../spec';

/** Small rules the directory commands share: GUIDs, the fields a sync writes, bounded work. */

/** The item's fields with the file's columns set (an empty cell removes the field); other fields kept. */
export function desiredFields(
  existing: DirectoryItemFields,
  row: { crmId: string; fields: DirectoryItemFields },
  columns: readonly string[],
): DirectoryItemFields {
  const next: Record<string, string> = { ...(existing as Record<string, string>) };
  for (const column of columns) delete next[column];
  const desired: DirectoryItemFields = { ...next, ...row.fields };
  // The item was found by this crmId: a difference of case alone is no change.
  if (existing.crmId !== undefined && existing.crmId.toLowerCase() === row.crmId.toLowerCase())
    desired.crmId = existing.crmId;
  return desired;
}

/** Names of fields whose values differ (added, removed or changed), sorted. */
export function changedFieldNames(before: DirectoryItemFields, after: DirectoryItemFields): string[] {
  const a = before as Record<string, string | undefined>;
  const b = after as Record<string, string | undefined>;
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => a[k] !== b[k]).sort();
}

/** Runs `work` over `items`, at most `limit` at once; the first rejection stops new work and is rethrown. */
export async function forEachBounded<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let stopped = false;
  const worker = async (): Promise<void> => {
    while (!stopped && next < items.length) {
      const item = items[next++] as T;
      try {
        await work(item);
      } catch (error) {
        stopped = true;
        throw error;
      }
    }
  };
  const results = await Promise.allSettled(
    Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker),
  );
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
}
