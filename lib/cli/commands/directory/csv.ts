/**
 * An RFC 4180 reader for contact files: quoted fields with embedded commas, quotes ("")
 * and line breaks, CRLF or LF line ends, a UTF-8 byte order mark. It never stops at a bad
 * record: a fault is reported with the line it starts on and reading goes on, so a sync
 * can list every bad row of a file at once.
 *
 * @example
 * ```ts
 * for (const entry of readCsv('crmId,fullName\r\n"0c1…","Hart, Amelia"\r\n')) {
 *   if (entry.kind === 'fault') console.error(`line ${entry.line}: ${entry.reason}`);
 *   else console.log(entry.line, entry.fields);
 * }
 * ```
 */

/** Codes of the faults a record can have. */
export const CSV_FAULT_CODES = {
  unterminatedQuote: 'CLI_CSV_UNTERMINATED_QUOTE',
  textAfterQuote: 'CLI_CSV_TEXT_AFTER_QUOTE',
  quoteInField: 'CLI_CSV_QUOTE_IN_FIELD',
} as const;
type CsvFaultCode = (typeof CSV_FAULT_CODES)[keyof typeof CSV_FAULT_CODES];

/** A record and the 1-based line of the file it starts on. */
interface CsvRecord {
  kind: 'record';
  line: number;
  fields: string[];
}

/** A record that could not be read; reading resumes on the line after its first line. */
interface CsvFault {
  kind: 'fault';
  line: number;
  code: CsvFaultCode;
  reason: string;
}

export type CsvEntry = CsvRecord | CsvFault;

const QUOTE = 34;
const COMMA = 44;
const LF = 10;
const CR = 13;

/** Length of the line break at `i` (CRLF 2, LF or a lone CR 1), 0 when there is none. */
function breakAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === LF) return 1;
  if (c === CR) return text.charCodeAt(i + 1) === LF ? 2 : 1;
  return 0;
}

/** Index just after the next line break at or after `i` (the text's end when none). */
function nextLineStart(text: string, i: number): number {
  for (let j = i; j < text.length; j++) {
    const n = breakAt(text, j);
    if (n > 0) return j + n;
  }
  return text.length;
}

/** Line breaks inside a quoted value (CRLF counts once). */
function countBreaks(value: string): number {
  let n = 0;
  for (let j = 0; j < value.length; j += Math.max(1, breakAt(value, j))) if (breakAt(value, j) > 0) n++;
  return n;
}

/** A fault inside a record. */
class RecordFault {
  constructor(
    readonly code: CsvFaultCode,
    readonly reason: string,
  ) {}
}

/**
 * Reads every record of `text`. Empty lines are skipped (a trailing line break is not a
 * record). After a fault, reading resumes on the line after the record's first line: a
 * stray quote most likely belonged to that line, and the rows after it are worth reading
 * rather than swallowed into one field (a broken multi-line field may then give a fault
 * per line; each is listed).
 */
export function* readCsv(text: string): Generator<CsvEntry> {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  while (i < text.length) {
    const blank = breakAt(text, i);
    if (blank > 0) {
      i += blank;
      line++;
      continue;
    }
    const startLine = line;
    const startIndex = i;
    const fields: string[] = [];
    try {
      for (;;) {
        const field = readField(text, i, line);
        fields.push(field.value);
        i = field.end;
        line = field.line;
        if (text.charCodeAt(i) === COMMA) {
          i++;
          continue;
        }
        i += breakAt(text, i);
        line++;
        break;
      }
      yield { kind: 'record', line: startLine, fields };
    } catch (error) {
      if (!(error instanceof RecordFault)) throw error;
      yield { kind: 'fault', line: startLine, code: error.code, reason: error.reason };
      i = nextLineStart(text, startIndex);
      line = startLine + 1;
    }
  }
}

interface FieldEnd {
  value: string;
  /** Index of the comma, line break or end after the field. */
  end: number;
  /** Line of `end`. */
  line: number;
}

function readField(text: string, i: number, line: number): FieldEnd {
  if (text.charCodeAt(i) !== QUOTE) {
    let j = i;
    while (j < text.length && text.charCodeAt(j) !== COMMA && breakAt(text, j) === 0) {
      if (text.charCodeAt(j) === QUOTE) {
        throw new RecordFault(
          CSV_FAULT_CODES.quoteInField,
          'a quote (") inside an unquoted field: quote the whole field and double the quote ("")',
        );
      }
      j++;
    }
    return { value: text.slice(i, j), end: j, line };
  }
  let value = '';
  let j = i + 1;
  for (;;) {
    const q = text.indexOf('"', j);
    if (q < 0) {
      throw new RecordFault(
        CSV_FAULT_CODES.unterminatedQuote,
        'a quoted field is never closed (unterminated quote)',
      );
    }
    value += text.slice(j, q);
    j = q + 1;
    if (text.charCodeAt(j) !== QUOTE) break;
    value += '"';
    j++;
  }
  const at = line + countBreaks(value);
  if (j < text.length && text.charCodeAt(j) !== COMMA && breakAt(text, j) === 0) {
    throw new RecordFault(
      CSV_FAULT_CODES.textAfterQuote,
      'text after a closing quote: a quoted field must end at a comma or the end of the line',
    );
  }
  return { value, end: j, line: at };
}
