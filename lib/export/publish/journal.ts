import type { ObjectStore } from '../../stores';
import { journalPrefix, type StagingLayout } from '../layout';

/**
 * The promotion journal, written in a machine-local store only (see publish.ts): what a later
 * run needs to roll a partition back when this process dies mid-promotion (recover-staging.ts).
 *
 * A promotion goes in batches of at most JOURNAL_BATCH partitions and formats: every object
 * of the batch is backed up, then ONE journal record naming the whole batch is written (a
 * durable put: temp file, fsync, rename, directory fsync), then the batch's objects are
 * replaced. So the record exists, complete, before any of its partitions is replaced, and
 * every backup it names exists before it: the guarantee a record per partition gave, at one
 * durable write per batch instead of one per partition and format (186 for 93 days).
 */

/** One partition and format of a journal record. */
export interface JournalEntry {
  runId: string;
  /** The partition's prefix (no trailing slash). */
  partition: string;
  manifest: string;
  /** Every object the partition held before, and its backup. */
  backups: { key: string; backup: string }[];
  /** Every key the promotion writes: its parts and the manifest. */
  writes: string[];
}

/** A journal record: the partitions and formats of one batch of a promotion. */
export interface JournalRecord {
  runId: string;
  entries: JournalEntry[];
}

/**
 * Partitions and formats per journal record (a record of 256 entries is about 100 KB).
 * Bounds what a record holds in memory and on disk whatever the window's length.
 */
export const JOURNAL_BATCH = 256;

/** Key of the record of a promotion's batch `batch` (0, 1, ...). */
export function journalRecordKey(layout: StagingLayout, runId: string, batch: number): string {
  return `${journalPrefix(layout, runId)}batch-${String(batch).padStart(5, '0')}.json`;
}

/** Writes a batch's record, durably, before any object of the batch is replaced. */
export async function writeJournalRecord(
  store: ObjectStore,
  key: string,
  record: JournalRecord,
): Promise<void> {
  await store.put(key, `${JSON.stringify(record)}\n`, { contentType: 'application/json' });
}

/**
 * The entries of a journal file: a batch's record, or one entry alone (what versions before
 * the batches wrote, one file per partition and format), so a run of either is recovered.
 */
export function journalEntriesOf(text: string): JournalEntry[] {
  const parsed = JSON.parse(text) as JournalRecord | JournalEntry;
  return 'entries' in parsed ? parsed.entries : [parsed];
}
