/**
 * Terminal output shared by every command: whether a stream is a person's terminal,
 * colour only there, a progress display (a live line on a terminal, plain lines in a
 * log or a pipe), and plain-text tables.
 *
 * @example
 * ```ts
 * const c = colors(io.stderr, io.env);
 * const bar = progress(io.stderr, io.env);
 * bar.update('Lost calls: polling (3)');      // redrawn in place on a TTY
 * bar.log(c.green('Lost calls: 812 rows'));   // a line that stays
 * bar.done();
 * io.stdout.write(renderTable(rows, ['report', { key: 'rows', header: 'rows' }]));
 * ```
 */

/** What these helpers need of a stream: a command's `io.stdout` or `io.stderr` (io-streams.ts). */
export interface TerminalStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  /** Width of the terminal, when it is one. */
  columns?: number;
}

type Env = Readonly<Record<string, string | undefined>>;

/** A person's terminal: a TTY whose TERM is not `dumb` (a line editor cannot redraw). */
export function isInteractive(stream: TerminalStream, env: Env): boolean {
  return stream.isTTY === true && env.TERM !== 'dumb';
}

/** Colour is wanted: an interactive stream, and NO_COLOR unset or empty (https://no-color.org). */
function colorEnabled(stream: TerminalStream, env: Env): boolean {
  return isInteractive(stream, env) && (env.NO_COLOR === undefined || env.NO_COLOR === '');
}

/** Styling functions; each returns the text unchanged when colour is off. */
export interface Colors {
  readonly enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

const sgr =
  (enabled: boolean, open: number, close: number) =>
  (text: string): string =>
    enabled ? `\x1b[${open}m${text}\x1b[${close}m` : text;

/** Colours for `stream`: none unless {@link colorEnabled}. */
export function colors(stream: TerminalStream, env: Env): Colors {
  const on = colorEnabled(stream, env);
  return {
    enabled: on,
    bold: sgr(on, 1, 22),
    dim: sgr(on, 2, 22),
    red: sgr(on, 31, 39),
    green: sgr(on, 32, 39),
    yellow: sgr(on, 33, 39),
    cyan: sgr(on, 36, 39),
  };
}

/** Removes colour codes, for measuring and for files. */
export function stripAnsi(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching the escape is the point.
  return text.replace(/\x1b\[[0-9;]*m/g, '');
}

/** A status display for something long. */
export interface Progress {
  /** Replaces the status: redrawn in place on a TTY; a plain line otherwise (only when it changed). */
  update(text: string): void;
  /** A line that stays (above the status on a TTY). */
  log(line: string): void;
  /** Clears the status line (TTY); nothing is printed for it. Further calls are ignored. */
  done(): void;
}

const CLEAR_LINE = '\r\x1b[2K';

/**
 * Progress on `stream` (stderr by convention, so stdout stays data). On an interactive
 * stream one live line, cut to the terminal width so it never wraps (a wrapped line
 * cannot be redrawn); otherwise every changed status is its own line, which logs and
 * CI keep.
 */
export function progress(stream: TerminalStream, env: Env): Progress {
  const live = isInteractive(stream, env);
  let status = '';
  let finished = false;
  const toWidth = (text: string): string => {
    // A pseudo-terminal without a size (script, some CI runners) reports 0 columns.
    const columns = stream.columns !== undefined && stream.columns > 0 ? stream.columns : 80;
    const width = Math.max(10, columns - 1);
    const plain = stripAnsi(text);
    return plain.length <= width ? text : `${plain.slice(0, width - 1)}…`;
  };
  return {
    update(text) {
      if (finished || text === status) return;
      status = text;
      stream.write(live ? `${CLEAR_LINE}${toWidth(text)}` : `${text}\n`);
    },
    log(line) {
      if (finished) return;
      stream.write(live ? `${CLEAR_LINE}${line}\n${status === '' ? '' : toWidth(status)}` : `${line}\n`);
    },
    done() {
      if (finished) return;
      finished = true;
      if (live && status !== '') stream.write(CLEAR_LINE);
    },
  };
}

/** A column of {@link renderTable}: a row key, or the key with a header, alignment and format. */
type TableColumn<R> =
  | (keyof R & string)
  | {
      key: keyof R & string;
      /** Default: the key. */
      header?: string;
      /** Default: right when every value is a number or bigint, else left. */
      align?: 'left' | 'right';
      /** Default: {@link formatCell}. */
      format?: (value: R[keyof R], row: R) => string;
    };

/**
 * Text of one value: null and undefined as empty, dates as ISO, objects as JSON. Control
 * characters (a newline inside a value) are shown escaped so a row stays one line.
 */
export function formatCell(value: unknown): string {
  let text: string;
  if (value === null || value === undefined) text = '';
  else if (value instanceof Date) text = value.toISOString();
  else if (typeof value === 'object')
    text = JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? String(v) : v));
  else text = String(value);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is escaped.
  return text.replace(/[\x00-\x1f\x7f]/g, (ch) => JSON.stringify(ch).slice(1, -1));
}

/**
 * A plain-text table: a header line, a rule, one line per row, columns padded to their
 * widest cell; numbers right-aligned. Ends with a newline; no rows gives header and rule.
 * `style.header` styles the header (e.g. `colors(stdout).bold`).
 */
export function renderTable<R extends object>(
  rows: readonly R[],
  columns: readonly TableColumn<R>[],
  style: { header?: (text: string) => string } = {},
): string {
  const specs = columns.map((c) => (typeof c === 'string' ? { key: c } : c));
  const cells = rows.map((row) => specs.map((c) => (c.format ?? formatCell)(row[c.key] as R[keyof R], row)));
  const headers = specs.map((c) => c.header ?? c.key);
  const aligns = specs.map(
    (c) =>
      c.align ??
      (rows.length > 0 &&
      rows.every((r) => {
        const v: unknown = r[c.key];
        return typeof v === 'number' || typeof v === 'bigint' || v === null || v === undefined;
      })
        ? 'right'
        : 'left'),
  );
  const widths = headers.map((h, i) =>
    Math.max(h.length, ...cells.map((line) => stripAnsi(line[i] ?? '').length)),
  );
  const pad = (text: string, i: number): string => {
    const fill = ' '.repeat(Math.max(0, (widths[i] ?? 0) - stripAnsi(text).length));
    return aligns[i] === 'right' ? fill + text : text + fill;
  };
  // The last left-aligned column is not padded: no trailing blanks.
  const line = (values: readonly string[]): string =>
    values
      .map((v, i) => pad(v, i))
      .join('  ')
      .trimEnd();
  const header = line(headers);
  return [
    style.header ? style.header(header) : header,
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...cells.map(line),
    '',
  ].join('\n');
}

/** A count with thousands separators, e.g. `31,380`, the same on every machine. */
export function formatCount(n: number | bigint): string {
  return n.toLocaleString('en-US');
}

/** A duration for people: `850 ms`, `7.9 s`, `2 min 05 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}
