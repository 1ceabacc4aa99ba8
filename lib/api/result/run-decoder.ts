import { type ApiErrorDetails, ProtocolError } from '../errors';
import { keepRawMembers, undocumentedColumns } from './members';
import { mayHoldInexactNumbers, quoteInexactNumbers } from './numbers';
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

  constructor(mode: InvalidTextMode = INVALID_TEXT_MODES.count, details: ApiErrorDetails = {}) {
    this.#mode = mode;
    this.#details = details;
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
   * Rows of `bytes` (complete elements of `data` separated by commas), or undefined when they
   * are not valid JSON (the scanner's guess of a row boundary was wrong, or the row is
   * malformed). `firstRow` is the index of the first row in the whole result, for errors.
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
    if (mayHoldInexactNumbers(bytes, rows)) {
      const exact = quoteInexactNumbers(text);
      if (exact !== text) rows = JSON.parse(`[${exact}]`) as unknown[];
    }
    if (hasUnicodeEscape(bytes)) {
      for (let i = 0; i < rows.length; i++) {
        replaced += replaceLoneSurrogates(rows[i], (path) => {
          if (this.#mode === INVALID_TEXT_MODES.fail)
            throw this.#invalid('a lone surrogate', firstRow + i, path[0]);
        });
      }
    }
    keepRawMembers(text, rows, this.#names, this.#undocumented);
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
      this.replacedCharacters += replaceLoneSurrogates(value, (path) => {
        if (this.#mode === INVALID_TEXT_MODES.fail)
          throw new ProtocolError(
            `The result holds a lone surrogate ${where} (member '${String(path[0])}')`,
            this.#details,
          );
      });
    }
    return value;
  }

  #invalid(what: string, row: number, member: string | number | undefined): ProtocolError {
    const name = typeof member === 'number' ? (this.#names[member] ?? `element ${member}`) : member;
    const where = name === undefined ? '' : `, member '${name}'`;
    return new ProtocolError(`The result holds ${what} in row index ${row}${where}`, this.#details);
  }
}
