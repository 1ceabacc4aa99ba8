import type { CommandSpec } from '../../command-line';

/**
 * Splits a command line into its flags (with their values) and its positional arguments,
 * which parseCommandLine does not take: a value option's value is the next word (`--dir
 * lake`) unless given inline, `-` alone is a positional (stdin), and everything after `--`
 * is positional.
 */
export function splitPositionals(
  spec: CommandSpec,
  argv: readonly string[],
): { flags: string[]; positionals: string[] } {
  const flags: string[] = [];
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    flags.push(arg);
    const name = arg.replace(/^--?/, '');
    const options = spec.options as Record<string, { type: string; short?: string }>;
    const option = arg.startsWith('--')
      ? options[name]
      : Object.values(options).find((o) => o.short === name);
    if (option?.type === 'string' && i + 1 < argv.length) flags.push(argv[++i] as string);
  }
  return { flags, positionals };
}
