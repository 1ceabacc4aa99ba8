import { type ApiErrorDetails, ProtocolError, ValueTooDeepError } from '../errors';
import { truncateServiceText } from '../service-text';
import { columnNamesOf } from './columns';
import { duplicateMember } from './duplicate-members';
import { keepRawMembers, type NameWork, undocumentedColumns } from './members';
import { hasInexactDecimal, quoteInexactNumbers } from './numbers';
import { inspectRows, MAX_VALUE_DEPTH, type TooDeepAt, walkValue } from './run-facts';
import {
  decodeReplacing,
  firstInvalidUtf8,
  hasUnicodeEscape,
  INVALID_TEXT_MODES,
  type InvalidTextMode,
  isUtf8,
  locateMember,
  replaceLoneSurrogates,
} from './text';

/**
 * Turns byte ranges of the result into values: checks the text (invalid UTF-8, lone
 * surrogates: counted and replaced, or a {@link ProtocolError}), keeps the source text of
 * numbers that do not round-trip, then JSON.parses; rows with members the spec does not
 * document get those members' source text (`RAW_MEMBERS`). One per result; it counts
 * replacements.
 */
export class RunDecoder {
  /** U+FFFD put in place of invalid UTF-8 sequences and lone surrogates so far. */
  replacedCharacters = 0;
  #names: readonly string[] = [];
  /** Elements of array rows whose column the spec does not document. */
  #undocumented: number[] = [];
  readonly #mode: InvalidTextMode;
  readonly #details: ApiErrorDetails;
  readonly #work: NameWork;

  constructor(
    mode: InvalidTextMode = INVALID_TEXT_MODES.count,
    details: ApiErrorDetails = {},
    work: NameWork = { comparedNames: 0 },
  ) {
    this.#mode = mode;
    this.#details = details;
    this.#work = work;
  }

  /** Column names of array rows (request.displayFields), to name members in errors. */
  get names(): readonly string[] {
    return this.#names;
  }

  set names(names: readonly string[]) {
    this.#names = names;
    this.#undocumented = undocumentedColumns(names);
  }

  /**
   * Takes the column names of array rows from the head's `request.displayFields`, before the
   * first row is parsed (rows may arrive in the head's chunk). Malformed fields give none:
   * the first array row then reports them.
   */
  useHead(head: Record<string, unknown>): void {
    const request = head.request as { displayFields?: unknown } | undefined;
    try {
      this.names = columnNamesOf(request?.displayFields, this.#details);
    } catch {
      this.names = [];
    }
  }

  /**
   * Rows of `bytes` (complete elements of `data` separated by commas), or undefined when they
   * are not valid JSON (the scanner's guess of a row boundary was wrong, or the row is
   * malformed). `firstRow` is the index of the first row in the whole result, for errors.
   * Throws a {@link ProtocolError} for a row with a member twice, a
   * {@link ValueTooDeepError} for a value nested too deep.
   */
  rows(bytes: Buffer, firstRow: number): unknown[] | undefined {
    let text: string;
    let replaced = 0;
    if (isUtf8(bytes)) text = bytes.toString('utf8');
    else {
      if (this.#mode === INVALID_TEXT_MODES.fail) {
        const at = locateMember(bytes, firstInvalidUtf8(bytes));
        throw this.#invalid('invalid UTF-8', firstRow + at.row, at.member);
      }
      ({ text, replaced } = decodeReplacing(bytes));
    }
    let rows: unknown[];
    try {
      rows = JSON.parse(`[${text}]`) as unknown[];
    } catch {
      return undefined;
    }
    const tooDeep = (at: TooDeepAt) =>
      new ValueTooDeepError(
        MAX_VALUE_DEPTH,
        { row: firstRow + at.row, member: this.#memberName(at.member) },
        this.#details,
      );
    let facts = inspectRows(rows, this.#undocumented, tooDeep);
    if (facts.suspect || hasInexactDecimal(bytes)) {
      const exact = quoteInexactNumbers(text);
      if (exact !== text) rows = JSON.parse(`[${exact}]`) as unknown[];
    }
    const escapes = hasUnicodeEscape(bytes);
    if (escapes) {
      let renamed = false;
      for (let i = 0; i < rows.length; i++) {
        replaced += replaceLoneSurrogates(rows[i], (member, isName) => {
          if (this.#mode === INVALID_TEXT_MODES.fail)
            throw this.#invalid('a lone surrogate', firstRow + i, member);
          if (isName) renamed = true;
        });
      }
      // A member name changed: the walk's names and counts are read again.
      if (renamed) facts = inspectRows(rows, this.#undocumented, tooDeep);
    }
    const duplicate = duplicateMember(bytes, text, rows, facts, escapes);
    if (duplicate !== undefined) {
      throw new ProtocolError(
        `Row index ${firstRow + duplicate.row} has the member '${truncateServiceText(duplicate.member, 64)}' twice`,
        this.#details,
      );
    }
    if (facts.undocumented !== undefined)
      keepRawMembers(text, rows, this.#names, facts.undocumented, this.#work);
    // Counted only once the run parsed: a wrong guess is decoded again by the exact scan.
    this.replacedCharacters += replaced;
    return rows;
  }

  /** A member-level JSON value of the head or the tail (`where` names it in errors). */
  value(bytes: Buffer, where: string): unknown {
    let text: string;
    if (isUtf8(bytes)) text = bytes.toString('utf8');
    else {
      if (this.#mode === INVALID_TEXT_MODES.fail)
        throw new ProtocolError(`The result holds invalid UTF-8 ${where}`, this.#details);
      const decoded = decodeReplacing(bytes);
      text = decoded.text;
      this.replacedCharacters += decoded.replaced;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new ProtocolError(`Malformed result ${where}`, { ...this.#details, cause: error });
    }
    if (hasUnicodeEscape(bytes)) {
      this.replacedCharacters += replaceLoneSurrogates(value, (member) => {
        if (this.#mode === INVALID_TEXT_MODES.fail)
          throw new ProtocolError(
            `The result holds a lone surrogate ${where} (member '${truncateServiceText(String(member), 64)}')`,
            this.#details,
          );
      });
    }
    // The head and the tail are objects (the scanner wraps their members in braces).
    const members = value as Record<string, unknown>;
    for (const member in members) {
      const v = members[member];
      if (typeof v === 'object' && v !== null) {
        walkValue(v, () => new ValueTooDeepError(MAX_VALUE_DEPTH, { member }, this.#details));
      }
    }
    return value;
  }

  /** A member for errors: an array row's element by its column name. */
  #memberName(member: string | number): string {
    const name = typeof member === 'number' ? (this.#names[member] ?? `element ${member}`) : member;
    return truncateServiceText(name, 64);
  }

  #invalid(what: string, row: number, member: string | number | undefined): ProtocolError {
    const where = member === undefined ? '' : `, member '${this.#memberName(member)}'`;
    return new ProtocolError(`The result holds ${what} in row index ${row}${where}`, this.#details);
  }
}
