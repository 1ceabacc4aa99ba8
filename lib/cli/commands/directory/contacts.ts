import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { type PhoneRegion, phoneExtension, toE164 } from '../../../api';
import { isGuid } from '../../../api/validate';
import { DIRECTORY_FIELD_NAMES, type DirectoryFieldName, type DirectoryItemFields } from '../../../spec';
import { type CsvEntry, readCsv } from './csv';
import { DIRECTORY_CLI_ERROR_CODES, DirectoryCommandError, SYNC_ROW_CODES } from './errors';

/**
 * A contacts file read into what a sync needs: one row per crmId with its fields
 * normalised (phones in E.164; crmId kept as written, compared ignoring case), and every
 * row that cannot be applied with its line and reason.
 */

/** A row to apply: the values of the file's columns (an empty cell is an absent field). */
export interface ContactRow {
  line: number;
  /** As written in the file. */
  crmId: string;
  fields: DirectoryItemFields;
}

/** A row that is applied, but not quite as written (a phone extension dropped). */
interface RowWarning {
  line: number;
  crmId: string;
  code: string;
  reason: string;
}

/** A row that is not applied, and why. */
interface BadRow {
  line: number;
  /** When it could be read. */
  crmId?: string;
  code: string;
  reason: string;
}

export interface ContactSheet {
  /** The file's columns, as directory field names (header order). */
  columns: DirectoryFieldName[];
  rows: ContactRow[];
  bad: BadRow[];
  /** Rows applied with a change the file's author should know of, by line. */
  warnings: RowWarning[];
  /** Every crmId the file names (lower case), bad rows included: a sync never deletes these. */
  crmIds: Set<string>;
  /** Records whose crmId could not be read (malformed): one of them may name any crmId. */
  unreadable: number;
}

/** Largest contacts file read (it is read whole). */
const MAX_CSV_BYTES = 64 * 1024 * 1024;

/**
 * The text of a contacts file: UTF-8 (invalid bytes are an error, not replaced), at most
 * {@link MAX_CSV_BYTES}. A relative `file` is read from `cwd` (the command's working
 * directory); messages name it as given.
 */
export async function readContactsFile(file: string, cwd: string): Promise<string> {
  const resolved = path.resolve(cwd, file);
  let bytes: Buffer;
  try {
    const stat = await fs.stat(resolved);
    if (stat.size > MAX_CSV_BYTES) {
      throw new DirectoryCommandError(
        DIRECTORY_CLI_ERROR_CODES.csvUnreadable,
        `${file} is ${stat.size} bytes; the largest contacts file read is ${MAX_CSV_BYTES} bytes: split it`,
      );
    }
    bytes = await fs.readFile(resolved);
  } catch (cause) {
    if (cause instanceof DirectoryCommandError) throw cause;
    throw new DirectoryCommandError(
      DIRECTORY_CLI_ERROR_CODES.csvUnreadable,
      `cannot read ${file}: ${(cause as Error).message}`,
      { cause },
    );
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (cause) {
    throw new DirectoryCommandError(
      DIRECTORY_CLI_ERROR_CODES.csvUnreadable,
      `${file} is not UTF-8 text: save it as "CSV UTF-8"`,
      { cause },
    );
  }
}

/** Header cell -> field name: the spec's names, matched ignoring case and surrounding blanks. */
function columnsOf(header: readonly string[]): DirectoryFieldName[] {
  const byLower = new Map(DIRECTORY_FIELD_NAMES.map((n) => [n.toLowerCase(), n]));
  const headerError = (message: string) =>
    new DirectoryCommandError(DIRECTORY_CLI_ERROR_CODES.csvHeader, `line 1 (the header): ${message}`);
  const columns = header.map((cell) => {
    const name = byLower.get(cell.trim().toLowerCase());
    if (name === undefined) {
      throw headerError(
        `unknown column '${cell}'; columns are directory fields: ${DIRECTORY_FIELD_NAMES.join(', ')}`,
      );
    }
    return name;
  });
  const repeated = columns.find((c, i) => columns.indexOf(c) !== i);
  if (repeated !== undefined) throw headerError(`column '${repeated}' appears twice`);
  if (!columns.includes('crmId'))
    throw headerError('a crmId column is required (sync matches items by crmId)');
  return columns;
}

/**
 * Reads the records of a contacts file: the first is the header, each other one a contact.
 * Throws a DirectoryCommandError when the header is unusable (nothing could be applied);
 * every other problem is a bad row, and reading goes on.
 */
function readContactSheet(entries: Iterable<CsvEntry>, region: PhoneRegion): ContactSheet {
  const iterator = entries[Symbol.iterator]();
  const first = iterator.next();
  if (first.done) {
    throw new DirectoryCommandError(
      DIRECTORY_CLI_ERROR_CODES.csvHeader,
      'the file is empty: a header row is required',
    );
  }
  if (first.value.kind === 'fault' || first.value.line !== 1) {
    const why = first.value.kind === 'fault' ? first.value.reason : 'it must be on line 1';
    throw new DirectoryCommandError(
      DIRECTORY_CLI_ERROR_CODES.csvHeader,
      `the header row is not readable: ${why}`,
    );
  }
  const columns = columnsOf(first.value.fields);
  const sheet: ContactSheet = {
    columns,
    rows: [],
    bad: [],
    warnings: [],
    crmIds: new Set(),
    unreadable: 0,
  };
  const firstLineOf = new Map<string, number>();
  for (let next = iterator.next(); !next.done; next = iterator.next()) {
    const entry = next.value;
    if (entry.kind === 'fault') {
      sheet.unreadable++;
      sheet.bad.push({ line: entry.line, code: entry.code, reason: entry.reason });
      continue;
    }
    if (entry.fields.length !== columns.length) {
      sheet.unreadable++;
      sheet.bad.push({
        line: entry.line,
        code: SYNC_ROW_CODES.columnCount,
        reason: `${entry.fields.length} fields, the header has ${columns.length}`,
      });
      continue;
    }
    const row = contactOf(entry.line, columns, entry.fields, region);
    if ('code' in row) {
      if (row.crmId === undefined) sheet.unreadable++;
      else sheet.crmIds.add(row.crmId.toLowerCase());
      sheet.bad.push(row);
    } else {
      sheet.crmIds.add(row.crmId.toLowerCase());
      const seen = firstLineOf.get(row.crmId.toLowerCase());
      if (seen !== undefined) {
        sheet.bad.push({
          line: row.line,
          crmId: row.crmId,
          code: SYNC_ROW_CODES.crmIdDuplicate,
          reason: `crmId ${row.crmId} is also on line ${seen}; only the first is applied`,
        });
        continue;
      }
      sheet.rows.push(row);
      for (const w of row.warnings ?? []) sheet.warnings.push({ line: row.line, crmId: row.crmId, ...w });
      delete row.warnings;
    }
    const key = row.crmId?.toLowerCase();
    if (key !== undefined && !firstLineOf.has(key)) firstLineOf.set(key, entry.line);
  }
  return sheet;
}

/** Reads a contacts file's text (see {@link readCsv}) into a {@link ContactSheet}. */
export function parseContacts(text: string, region: PhoneRegion): ContactSheet {
  return readContactSheet(readCsv(text), region);
}

/** One record as a contact (with what it could not keep), or the row's problems (every one, in column order). */
function contactOf(
  line: number,
  columns: readonly DirectoryFieldName[],
  cells: readonly string[],
  region: PhoneRegion,
): (ContactRow & { warnings?: { code: string; reason: string }[] }) | BadRow {
  const fields: DirectoryItemFields = {};
  const problems: { code: string; reason: string }[] = [];
  const warnings: { code: string; reason: string }[] = [];
  let crmId: string | undefined;
  columns.forEach((name, i) => {
    const value = (cells[i] ?? '').trim();
    if (name === 'crmId') {
      if (value === '') problems.push({ code: SYNC_ROW_CODES.crmIdMissing, reason: 'crmId is empty' });
      else if (!isGuid(value))
        problems.push({ code: SYNC_ROW_CODES.crmIdInvalid, reason: `crmId '${value}' is not a GUID` });
      // As written: a service that compared crmIds by case would not find a lower-cased one.
      else crmId = value;
      if (crmId !== undefined) fields.crmId = crmId;
      return;
    }
    if (value === '') return;
    if (/^phone[1-4]$/.test(name)) {
      try {
        const e164 = toE164(name, value, region, { extension: 'drop' });
        fields[name] = e164;
        const ext = phoneExtension(value, region);
        if (ext !== undefined) {
          warnings.push({
            code: SYNC_ROW_CODES.phoneExtensionDropped,
            reason: `${name} '${value}': extension ${ext} is not stored (a directory phone is E.164, which has no extension); synced as ${e164}. Keep the extension in another column (e.g. field1) if it is needed`,
          });
        }
      } catch {
        problems.push({
          code: SYNC_ROW_CODES.phoneInvalid,
          reason: `${name} '${value}' is not a phone number (read in region ${region} when it has no +country code)`,
        });
      }
      return;
    }
    fields[name] = value;
  });
  const [first] = problems;
  if (first !== undefined) {
    return {
      line,
      ...(crmId === undefined ? {} : { crmId }),
      code: first.code,
      reason: problems.map((p) => p.reason).join('; '),
    };
  }
  return { line, crmId: crmId as string, fields, ...(warnings.length > 0 ? { warnings } : {}) };
}
