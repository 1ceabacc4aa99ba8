import { parseArgs } from 'node:util';

/**
 * Command-line options shared by every command (`npm start`, `npm run sim`, later
 * subcommands): each command declares its options once, with help text and a value
 * parser; parsing, usage errors and `--help` are the same everywhere.
 */

export const CLI_ERROR_CODES = {
  usage: 'CLI_USAGE',
  /** A configuration value (flag, REPORT_EXPORT_* variable or config file) that is not acceptable. */
  config: 'CLI_CONFIG_INVALID',
  /** `login` saw no redirect before `--timeout`. */
  loginTimeout: 'CLI_LOGIN_TIMEOUT',
  /** `login`: the loopback redirect could not be served (port taken, bad certificate). */
  loopback: 'CLI_LOOPBACK_FAILED',
  /** `login`: the token response had no refresh token (the export needs one). */
  noRefreshToken: 'CLI_NO_REFRESH_TOKEN',
  /** `start` / `backfill`: an execution ended other than SUCCEEDED. */
  executionFailed: 'CLI_EXECUTION_FAILED',
  /** `backfill`: the state file cannot be read or written. */
  stateFile: 'CLI_STATE_FILE',
  /** The service address a stored login gave cannot be reached (the login may be stale). */
  loginUnreachable: 'CLI_LOGIN_UNREACHABLE',
} as const;
type CliErrorCode = (typeof CLI_ERROR_CODES)[keyof typeof CLI_ERROR_CODES];

/** Exit status of a command line that cannot run (as BSD sysexits and most shells use it). */
const USAGE_EXIT_CODE = 2;

/** A command line that cannot run: the message names the flag or argument at fault. */
export class UsageError extends Error {
  override readonly name: string = 'UsageError';
  readonly code: CliErrorCode = CLI_ERROR_CODES.usage;
  readonly exitCode = USAGE_EXIT_CODE;
}

/**
 * A configuration value that is not acceptable, from a flag, a `REPORT_EXPORT_*` variable
 * or the config file; the message names where it came from. Exit 2 like any usage error.
 */
export class ConfigError extends UsageError {
  override readonly name: string = 'ConfigError';
  override readonly code: CliErrorCode = CLI_ERROR_CODES.config;
}

/** A command that ran and failed for a reason of its own (not a usage error): exit 1. */
export class CommandError extends Error {
  override readonly name: string = 'CommandError';
  readonly code: CliErrorCode;
  constructor(code: CliErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** Reads an option's text; throws UsageError (message naming `flag`) when it is not acceptable. */
export type ValueParser<T> = (raw: string, flag: string) => T;

/** An option that takes a value, e.g. `--port <n>` or `--port=<n>`. */
export interface ValueOption<T = string> {
  type: 'string';
  /** Placeholder in the help, e.g. `<n>`. */
  value: string;
  help: string;
  short?: string;
  /** Default: the text as given. */
  parse?: ValueParser<T>;
  /** Given more than once is a usage error unless the option is {@link RepeatableOption}. */
  multiple?: false;
  /**
   * The value when the option is not given: the one declaration of the default, which the
   * help shows as `(default <value>)` (or `defaultText`). Unset: the value is undefined.
   */
  default?: T;
  /**
   * How the help shows the default: for a `default` that reads better otherwise (a path as
   * `./data-lake`), or, alone, for a default applied elsewhere (a setting that also comes
   * from the environment or a config file, a default computed at run time).
   */
  defaultText?: string;
}

/** An option that may be given several times, e.g. `--report A --report B`; values in order. */
interface RepeatableOption<T = string> extends Omit<ValueOption<T>, 'multiple' | 'default' | 'defaultText'> {
  multiple: true;
}

/** A switch, e.g. `--json`; it takes no value. */
interface FlagOption {
  type: 'boolean';
  help: string;
  short?: string;
}

/** `-h, --help`: every command takes it, with the same words. */
export const HELP_OPTION = {
  help: { type: 'boolean', short: 'h', help: 'show this help' },
} as const satisfies Record<'help', FlagOption>;

type OptionSpec = ValueOption<unknown> | RepeatableOption<unknown> | FlagOption;
type OptionSpecs = Record<string, OptionSpec>;

/** What a command registers: its options and the text of its `--help`. */
export interface CommandSpec<O extends OptionSpecs = OptionSpecs> {
  /** Name in a command list, e.g. `local`. */
  name: string;
  /** First line of the help, e.g. `Usage: npm run sim -- [options]`. */
  usage: string;
  /** One line for a command list; also opens the help. */
  summary: string;
  /** More paragraphs after the summary. */
  description?: string;
  options: O;
  examples: readonly string[];
  /** Paragraph after the examples. */
  notes?: string;
  /** The words that may follow the command (`directory search`), each with its own options. */
  subcommands?: readonly CommandSpec[];
}

/**
 * Parsed values: switches are booleans, value options their parsed value (or their
 * declared default, else undefined), repeatable options the list of values given
 * (undefined when none).
 */
export type OptionValues<O extends OptionSpecs> = {
  [K in keyof O]: O[K] extends FlagOption
    ? boolean
    : O[K] extends RepeatableOption<infer T>
      ? T[] | undefined
      : O[K] extends ValueOption<infer T>
        ? O[K] extends { default: unknown }
          ? T
          : T | undefined
        : never;
};

/**
 * A command whose one subcommand (`verb`) takes the command's own options, as in
 * `workspaces list`: the spec with that subcommand named, for help and completion.
 */
export function withVerb<O extends OptionSpecs>(spec: CommandSpec<O>, verb: string): CommandSpec<O> {
  return { ...spec, subcommands: [{ ...spec, name: verb }] };
}

/**
 * argv of a {@link withVerb} command without its verb (`workspaces list --json` ->
 * `--json`); a help flag in the verb's place stays. A missing or other verb is a
 * UsageError naming the command and its verb.
 */
export function argsOfVerb(spec: CommandSpec, argv: readonly string[]): readonly string[] {
  const verb = spec.subcommands?.[0]?.name ?? '';
  const [word, ...rest] = argv;
  if (word === '--help' || word === '-h') return [word];
  if (word === verb) return rest;
  throw new UsageError(
    word === undefined
      ? `${spec.name} needs a subcommand: ${spec.name} ${verb}`
      : `unknown subcommand '${spec.name} ${word}' (try: ${spec.name} ${verb})`,
  );
}

/** Declares a command with its option types kept (so values come out typed). */
export function defineCommand<O extends OptionSpecs>(spec: CommandSpec<O>): CommandSpec<O> {
  return spec;
}

const flagName = (name: string): string => `--${name}`;

/**
 * Parses argv (without node and script) against the command's options. Unknown flags,
 * missing values, values given to switches, stray arguments and bad values are UsageErrors
 * naming the flag.
 */
export function parseCommandLine<O extends OptionSpecs>(
  spec: CommandSpec<O>,
  argv: readonly string[],
): OptionValues<O> {
  const config = Object.fromEntries(
    Object.entries(spec.options).map(([name, o]) => [
      name,
      o.short === undefined ? { type: o.type } : { type: o.type, short: o.short },
    ]),
  );
  // Not strict: every problem is reported here in one wording, naming the flag.
  const { tokens } = parseArgs({
    args: inlineNegativeNumbers(spec.options, argv),
    options: config,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const values: Record<string, unknown> = {};
  for (const [name, o] of Object.entries(spec.options))
    values[name] = o.type === 'boolean' ? false : undefined;
  const given = new Set<string>();
  for (const token of tokens) {
    if (token.kind === 'positional') throw new UsageError(`unexpected argument '${token.value}'`);
    if (token.kind !== 'option') continue;
    const option = Object.hasOwn(spec.options, token.name) ? spec.options[token.name] : undefined;
    if (option === undefined) {
      const near = nearestOption(token.name, Object.keys(spec.options));
      throw new UsageError(
        `unknown option '${token.rawName}'${near === undefined ? '' : ` (did you mean --${near}?)`} (see --help)`,
      );
    }
    const flag = flagName(token.name);
    if (option.type === 'boolean') {
      if (token.value !== undefined) throw new UsageError(`${flag} takes no value, got '${token.value}'`);
      values[token.name] = true;
      continue;
    }
    // `--port --json`: parseArgs would take the next flag as the value.
    if (token.value === undefined || (!token.inlineValue && token.value.startsWith('-'))) {
      throw new UsageError(`${flag} needs a value ${option.value}`);
    }
    if (option.multiple !== true && given.has(token.name)) {
      throw new UsageError(`${flag} is given more than once`);
    }
    given.add(token.name);
    const value = option.parse ? option.parse(token.value, flag) : token.value;
    values[token.name] =
      option.multiple === true ? [...((values[token.name] as unknown[] | undefined) ?? []), value] : value;
  }
  for (const [name, o] of Object.entries(spec.options)) {
    if (o.type === 'string' && o.multiple !== true && !given.has(name) && o.default !== undefined)
      values[name] = o.default;
  }
  return values as OptionValues<O>;
}

/**
 * `--port -1` as `--port=-1`: no option starts with a digit, so a negative number after an
 * option that takes a value is that value, and its parser says what is wrong with it (not
 * "needs a value"). Nothing after `--` is touched.
 */
function inlineNegativeNumbers(options: OptionSpecs, argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') return [...out, ...argv.slice(i)];
    const next = argv[i + 1];
    const name = /^--([a-z][a-z0-9-]*)$/.exec(arg)?.[1];
    const option = name !== undefined && Object.hasOwn(options, name) ? options[name] : undefined;
    if (option?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

/** Edits (insert, delete, replace, swap two neighbours) from `a` to `b`. */
function editDistance(a: string, b: string): number {
  const w = b.length + 1;
  const d = new Array<number>((a.length + 1) * w).fill(0);
  const at = (i: number, j: number): number => d[i * w + j] ?? 0;
  for (let i = 0; i <= a.length; i++) {
    for (let j = 0; j <= b.length; j++) {
      if (i === 0 || j === 0) {
        d[i * w + j] = i + j;
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, at(i - 2, j - 2) + 1);
      d[i * w + j] = best;
    }
  }
  return at(a.length, b.length);
}

/** The option a mistyped name most likely meant: within 2 edits (1 for short names), the nearest. */
function nearestOption(name: string, names: readonly string[]): string | undefined {
  const limit = name.length <= 3 ? 1 : 2;
  let best: { name: string; distance: number } | undefined;
  for (const candidate of names) {
    const distance = editDistance(name, candidate);
    if (distance <= limit && (best === undefined || distance < best.distance))
      best = { name: candidate, distance };
  }
  return best?.name;
}

/** Parsed values, or undefined once `--help` is printed on `out` (the command's stdout; it then exits 0). */
export function parseOrHelp<O extends OptionSpecs>(
  spec: CommandSpec<O>,
  argv: readonly string[],
  out: { write(text: string): unknown },
): OptionValues<O> | undefined {
  const v = parseCommandLine(spec, argv);
  if ((v as { help?: boolean }).help === true) {
    out.write(renderHelp(spec));
    return undefined;
  }
  return v;
}

/** ` (default <value>)` for an option that declares its default; empty otherwise. */
function defaultNote(o: OptionSpec): string {
  if (o.type !== 'string' || o.multiple === true) return '';
  const shown = o.defaultText ?? (o.default === undefined ? undefined : String(o.default));
  return shown === undefined ? '' : ` (default ${shown})`;
}

/** The `--help` text: usage, summary, options with their help, examples. */
export function renderHelp(spec: CommandSpec): string {
  const rows = Object.entries(spec.options).map(([name, o]) => {
    const flag = `${o.short === undefined ? '    ' : `-${o.short}, `}${flagName(name)}`;
    const left = o.type === 'string' ? `${flag} ${o.value}${o.multiple === true ? ' ...' : ''}` : flag;
    return [left, `${o.help}${defaultNote(o)}`] as const;
  });
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  const sections = [
    spec.usage,
    [spec.summary, spec.description].filter((p) => p !== undefined).join('\n\n'),
    `Options:\n${rows.map(([left, help]) => `  ${left.padEnd(width)}${help}`).join('\n')}`,
    `Examples:\n${spec.examples.map((e) => `  ${e}`).join('\n')}`,
    ...(spec.notes === undefined ? [] : [spec.notes]),
  ];
  return `${sections.join('\n\n')}\n`;
}

/** A list of commands for a multi-command program's `--help`. */
export function renderCommandList(commands: readonly CommandSpec[]): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  return `Commands:\n${commands.map((c) => `  ${c.name.padEnd(width)}${c.summary}`).join('\n')}\n`;
}

/** The line a program prints for a failure: `<program>: <message> [<code>]`. */
export function describeFailure(program: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  return `${program}: ${message}${typeof code === 'string' ? ` [${code}]` : ''}\n`;
}

/** Exit status for a failure: 2 for a usage error, else 1. */
export function exitCodeOf(error: unknown): number {
  return error instanceof UsageError ? error.exitCode : 1;
}

// Value parsers: each message names the flag and quotes what was given.

/** An integer from `min` to `max` written in decimal digits. */
export function integerValue(min: number, max: number): ValueParser<number> {
  return (raw, flag) => {
    const n = Number(raw);
    if (!/^-?\d+$/.test(raw) || n < min || n > max) {
      throw new UsageError(`${flag} must be an integer from ${min} to ${max}, got '${raw}'`);
    }
    return n;
  };
}

/** One of the listed words. */
export function choiceValue<const T extends string>(choices: readonly T[]): ValueParser<T> {
  return (raw, flag) => {
    if (!(choices as readonly string[]).includes(raw)) {
      throw new UsageError(`${flag} must be one of ${choices.map((c) => `'${c}'`).join(', ')}, got '${raw}'`);
    }
    return raw as T;
  };
}

/** Any text but the empty one. */
export const nonEmptyValue: ValueParser<string> = (raw, flag) => {
  if (raw.length === 0) throw new UsageError(`${flag} must not be empty`);
  return raw;
};
