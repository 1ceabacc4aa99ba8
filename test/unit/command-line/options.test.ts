import { describe, expect, it } from 'vitest';
import {
  choiceValue,
  defineCommand,
  describeFailure,
  exitCodeOf,
  integerValue,
  parseCommandLine,
  renderCommandList,
  renderHelp,
  UsageError,
} from '../../../lib/command-line/options';

const COMMAND = defineCommand({
  name: 'demo',
  usage: 'Usage: demo [options]',
  summary: 'A command for the tests.',
  options: {
    count: { type: 'string', value: '<n>', help: 'how many', parse: integerValue(1, 9) },
    mode: { type: 'string', value: '<m>', help: 'fast or slow', parse: choiceValue(['fast', 'slow']) },
    name: { type: 'string', value: '<text>', help: 'free text' },
    verbose: { type: 'boolean', short: 'v', help: 'say more' },
  },
  examples: ['demo --count 3', 'demo -v --mode=slow'],
  notes: 'Exit status 2 on a usage error.',
});

function usageErrorOf(argv: string[]): UsageError | undefined {
  try {
    parseCommandLine(COMMAND, argv);
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  return undefined;
}

describe('parseCommandLine', () => {
  it('returns typed values, false for absent switches and undefined for absent values when argv is valid', () => {
    // Act
    const values = parseCommandLine(COMMAND, ['--count', '3', '-v', '--name=--literal']);
    // Assess
    expect(values).toEqual({ count: 3, mode: undefined, name: '--literal', verbose: true });
  });

  it.each([
    { argv: ['--colour'], message: "unknown option '--colour' (see --help)" },
    { argv: ['-x'], message: "unknown option '-x' (see --help)" },
    { argv: ['--cuont', '3'], message: "unknown option '--cuont' (did you mean --count?) (see --help)" },
    { argv: ['--verbsoe'], message: "unknown option '--verbsoe' (did you mean --verbose?) (see --help)" },
    { argv: ['--nam=x'], message: "unknown option '--nam' (did you mean --name?) (see --help)" },
    { argv: ['--count'], message: '--count needs a value <n>' },
    { argv: ['--name', '--verbose'], message: '--name needs a value <text>' },
    { argv: ['--count', 'ten'], message: "--count must be an integer from 1 to 9, got 'ten'" },
    { argv: ['--count', '-3'], message: "--count must be an integer from 1 to 9, got '-3'" },
    { argv: ['--name', '-1', '--', '-2'], message: "unexpected argument '-2'" },
    { argv: ['--count', '1.5'], message: "--count must be an integer from 1 to 9, got '1.5'" },
    { argv: ['--mode', 'medium'], message: "--mode must be one of 'fast', 'slow', got 'medium'" },
    { argv: ['--verbose=1'], message: "--verbose takes no value, got '1'" },
    { argv: ['--count', '1', '--count', '2'], message: '--count is given more than once' },
    { argv: ['stray'], message: "unexpected argument 'stray'" },
  ])('throws UsageError "$message" when argv is $argv', ({ argv, message }) => {
    // Act
    const error = usageErrorOf(argv);
    // Assess
    expect(error).toMatchObject({ name: 'UsageError', code: 'CLI_USAGE', exitCode: 2, message });
  });
});

describe('declared defaults', () => {
  const WITH_DEFAULTS = defineCommand({
    name: 'defaults',
    usage: 'Usage: defaults [options]',
    summary: 'Defaults declared once.',
    options: {
      limit: { type: 'string', value: '<n>', help: 'how many', parse: integerValue(1, 99), default: 10 },
      out: {
        type: 'string',
        value: '<dir>',
        help: 'where',
        default: 'data-lake',
        defaultText: './data-lake',
      },
      region: { type: 'string', value: '<r>', help: 'region', defaultText: 'from the environment' },
    },
    examples: ['defaults'],
  });

  it('gives the declared default when the option is absent, and the parsed value when it is given', () => {
    // Act
    const absent = parseCommandLine(WITH_DEFAULTS, []);
    const given = parseCommandLine(WITH_DEFAULTS, ['--limit', '3', '--out', '/tmp/lake']);
    // Assess: a default is the value; defaultText alone (applied elsewhere) gives none.
    const limit: number = absent.limit;
    expect([limit, absent.out, absent.region]).toEqual([10, 'data-lake', undefined]);
    expect([given.limit, given.out]).toEqual([3, '/tmp/lake']);
  });

  it('refuses an option given twice even when the first value equals the default', () => {
    // Act
    const error = (() => {
      try {
        parseCommandLine(WITH_DEFAULTS, ['--limit', '10', '--limit', '5']);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    // Assess
    expect(error).toMatchObject({ name: 'UsageError', message: '--limit is given more than once' });
  });

  it('shows each default in the help, as its text when one is declared', () => {
    // Act
    const help = renderHelp(WITH_DEFAULTS);
    // Assess
    expect(help).toContain('how many (default 10)\n');
    expect(help).toContain('where (default ./data-lake)\n');
    expect(help).toContain('region (default from the environment)\n');
  });
});

describe('renderHelp', () => {
  it('lists usage, summary, every option with its placeholder and help, examples and notes', () => {
    // Act
    const help = renderHelp(COMMAND);
    // Assess
    expect(help).toBe(`Usage: demo [options]

A command for the tests.

Options:
      --count <n>    how many
      --mode <m>     fast or slow
      --name <text>  free text
  -v, --verbose      say more

Examples:
  demo --count 3
  demo -v --mode=slow

Exit status 2 on a usage error.
`);
  });
});

describe('renderCommandList', () => {
  it('names each registered command with its summary', () => {
    // Act
    const text = renderCommandList([COMMAND, { ...COMMAND, name: 'other', summary: 'Another one.' }]);
    // Assess
    expect(text).toBe('Commands:\n  demo   A command for the tests.\n  other  Another one.\n');
  });
});

describe('describeFailure', () => {
  it.each([
    {
      error: new UsageError('--count needs a value <n>'),
      line: 'demo: --count needs a value <n> [CLI_USAGE]\n',
      exit: 2,
    },
    { error: new Error('boom'), line: 'demo: boom\n', exit: 1 },
    { error: 'text', line: 'demo: text\n', exit: 1 },
  ])('prints "$line" and exits $exit when the failure is $error', ({ error, line, exit }) => {
    // Act / Assess
    expect(describeFailure('demo', error)).toBe(line);
    expect(exitCodeOf(error)).toBe(exit);
  });
});
