import { TableInvalidError } from '../../errors';
import type { TableMetadata } from './types';

/**
 * Metadata JSON text <-> TableMetadata, keeping snapshot ids exact. Our snapshot ids are safe
 * integers, but a table also holds snapshots of other writers: Glue's optimizers (compaction)
 * and Athena commit with Java's random 63-bit ids, which JSON.parse would round, and a commit
 * writing the rounded id back as a parent, a ref or a log entry would break the table. Such an
 * id is read as its decimal string (it still compares exactly with `===`, and `BigInt()` takes
 * it) and written back as the same JSON number.
 */

/** The members whose values are snapshot ids (metadata, snapshots, logs, refs). */
const ID_MEMBERS = '"(snapshot-id|parent-snapshot-id|current-snapshot-id)"';
/**
 * A long integer as a member's value. Inside a JSON string a quote is escaped (`\"`), so the
 * pattern cannot match a summary value that merely spells such a member.
 */
const LONG_ID = new RegExp(`${ID_MEMBERS}(\\s*:\\s*)(-?\\d{16,})(?=[\\s,}\\]])`, 'g');
/** An id written back: the decimal string JSON.stringify gave it quotes. */
const QUOTED_ID = new RegExp(`${ID_MEMBERS}:"(-?\\d+)"`, 'g');

/** `current-snapshot-id` of a table without snapshots in Iceberg's Java writer (read back as null). */
const NO_SNAPSHOT = -1;

/** Parses a metadata file; `where` names it in errors. */
export function parseMetadata(text: string, where: string): TableMetadata {
  let parsed: unknown;
  try {
    parsed = JSON.parse(
      text.replace(LONG_ID, (match, member: string, colon: string, digits: string) =>
        Number.isSafeInteger(Number(digits)) ? match : `"${member}"${colon}"${digits}"`,
      ),
    );
  } catch (error) {
    throw new TableInvalidError(`The table metadata ${where} is not JSON`, { cause: error });
  }
  const metadata = parsed as Partial<TableMetadata> | null;
  if (metadata === null || typeof metadata !== 'object' || metadata['format-version'] !== 2) {
    throw new TableInvalidError(
      `The table metadata ${where} is not Iceberg format version 2 (format-version ${String(metadata?.['format-version'])})`,
    );
  }
  for (const member of ['schemas', 'partition-specs', 'snapshots', 'snapshot-log', 'metadata-log'] as const) {
    if (metadata[member] === undefined) (metadata as Record<string, unknown>)[member] = [];
    if (!Array.isArray(metadata[member])) {
      throw new TableInvalidError(`The table metadata ${where} has no ${member} list`);
    }
  }
  metadata.refs ??= {};
  metadata.properties ??= {};
  if (metadata['current-snapshot-id'] === undefined || metadata['current-snapshot-id'] === NO_SNAPSHOT) {
    metadata['current-snapshot-id'] = null;
  }
  return metadata as TableMetadata;
}

/**
 * The metadata file's text; an id read as a string is written as the number it was. No
 * current snapshot is written -1, as Iceberg's Java writer does: its older readers (Athena's,
 * Glue's) require a number there.
 */
export function stringifyMetadata(metadata: TableMetadata): string {
  const current = metadata['current-snapshot-id'] ?? NO_SNAPSHOT;
  return JSON.stringify({ ...metadata, 'current-snapshot-id': current }).replace(QUOTED_ID, '"$1":$2');
}

/** A snapshot id as the Avro long of manifests and manifest lists. */
export function snapshotIdToLong(id: number | string): bigint {
  return BigInt(id);
}
