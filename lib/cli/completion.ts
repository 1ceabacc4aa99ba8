import type { CommandSpec } from '../command-line';

/** Shells `completion` writes a script for. */
export const COMPLETION_SHELLS = ['bash', 'zsh', 'fish'] as const;
type CompletionShell = (typeof COMPLETION_SHELLS)[number];

/** Words a shell may complete after a command: its flags, long and short. */
function flagsOf(spec: CommandSpec): string[] {
  return Object.entries(spec.options).flatMap(([name, o]) => [
    `--${name}`,
    ...(o.short === undefined ? [] : [`-${o.short}`]),
  ]);
}

/** The flags of a command that take a value: after one of them, the shell completes a path. */
function valueFlagsOf(spec: CommandSpec): string[] {
  return Object.entries(spec.options).flatMap(([name, o]) =>
    o.type === 'string' ? [`--${name}`, ...(o.short === undefined ? [] : [`-${o.short}`])] : [],
  );
}

/** A word safe inside single quotes in every shell here. */
const quoted = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** Each command line a shell completes flags for: `query`, `directory search` ... */
function flagTargets(commands: readonly CommandSpec[]): { key: string; spec: CommandSpec }[] {
  return commands.flatMap((c) =>
    c.subcommands === undefined
      ? [{ key: c.name, spec: c }]
      : c.subcommands.map((s) => ({ key: `${c.name} ${s.name}`, spec: s })),
  );
}

/**
 * The completion script of `program` for `shell`, from the commands' own specs: command
 * names (with their summaries where the shell shows them), subcommands (`directory
 * search`, `workspaces list`), each one's flags, a path after a flag that takes a value,
 * and the words of `help` and `completion`. Made from the same specs `--help` prints, so a
 * new command, subcommand or flag completes without an edit. A leading flag completes the
 * default command's (`report-export --fr` -> `--from`).
 *
 * @example
 * // bash: source <(report-export completion bash)
 * // zsh:  source <(report-export completion zsh)
 * // fish: report-export completion fish | source
 */
export function completionScript(
  shell: CompletionShell,
  program: string,
  commands: readonly CommandSpec[],
  programCommands: readonly { name: string; summary: string }[] = [],
  defaultCommand?: string,
): string {
  const names = [...commands.map((c) => c.name), ...programCommands.map((c) => c.name)];
  const input: ScriptInput = { program, commands, names, defaultCommand };
  return shell === 'fish' ? fishScript(input, programCommands) : bashScript(shell, input);
}

/** What every script is made from: the program, its commands and the words of its first position. */
interface ScriptInput {
  program: string;
  commands: readonly CommandSpec[];
  /** Every command name, the program's own (help, completion) included. */
  names: readonly string[];
  defaultCommand: string | undefined;
}

function bashScript(
  shell: 'bash' | 'zsh',
  { program, commands, names, defaultCommand }: ScriptInput,
): string {
  const fn = `_${program.replace(/[^A-Za-z0-9]/g, '_')}`;
  const grouped = commands.filter((c) => c.subcommands !== undefined);
  const subcommandCases = grouped
    .map(
      (c) =>
        `          ${c.name}) words=${quoted([...(c.subcommands ?? []).map((s) => s.name), ...flagsOf(c)].join(' '))} ;;`,
    )
    .join('\n');
  const flagCases = flagTargets(commands)
    .map(
      ({ key, spec }) =>
        `    ${quoted(key)}) words=${quoted(flagsOf(spec).join(' '))}; values=${quoted(valueFlagsOf(spec).join(' '))} ;;`,
    )
    .join('\n');
  const defaultKey =
    defaultCommand === undefined
      ? ''
      : `
  # A leading flag belongs to the default command.
  case "$key" in -*) key=${quoted(defaultCommand)}; first=1 ;; esac`;
  const body = `${fn}() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]} key=\${COMP_WORDS[1]} first=2 words='' values=''
  if [ "$COMP_CWORD" -eq 1 ] && [ "\${cur#-}" = "$cur" ]; then
    COMPREPLY=( $(compgen -W ${quoted(names.join(' '))} -- "$cur") )
    return
  fi${defaultKey}
  if [ "$first" -eq 2 ]; then
    case "$key" in
      ${grouped.map((c) => c.name).join('|') || '__none__'})
        if [ "$COMP_CWORD" -eq 2 ]; then
          case "$key" in
${subcommandCases}
          esac
          COMPREPLY=( $(compgen -W "$words" -- "$cur") )
          return
        fi
        key="$key \${COMP_WORDS[2]}" ;;
    esac
  fi
  case "$key" in
${flagCases}
    completion) words=${quoted(COMPLETION_SHELLS.join(' '))} ;;
    help) words=${quoted(commands.map((c) => c.name).join(' '))} ;;
  esac
  # After a flag that takes a value: nothing here, so the shell completes a path.
  case " $values " in *" $prev "*) COMPREPLY=(); return ;; esac
  COMPREPLY=( $(compgen -W "$words" -- "$cur") )
}
complete -o default -F ${fn} ${program}
`;
  // zsh runs bash completion functions through bashcompinit.
  return shell === 'zsh' ? `autoload -U +X bashcompinit && bashcompinit\n${body}` : body;
}

function fishScript(
  { program, commands, names, defaultCommand }: ScriptInput,
  programCommands: readonly { name: string; summary: string }[],
): string {
  const defaultSpec = commands.find((c) => c.name === defaultCommand);
  const options = (condition: string, spec: CommandSpec) =>
    Object.entries(spec.options).map(
      ([name, o]) =>
        // -r: the flag takes a value, which fish completes as a path; a switch completes no file.
        `complete -c ${program} -n ${quoted(condition)} -l ${name}${o.short === undefined ? '' : ` -s ${o.short}`}${o.type === 'string' ? ' -r' : ' -f'} -d ${quoted(o.help)}`,
    );
  const lines = [
    // The command word: no file there.
    ...[...commands, ...programCommands].map(
      (c) => `complete -c ${program} -n '__fish_use_subcommand' -f -a ${c.name} -d ${quoted(c.summary)}`,
    ),
    ...commands.flatMap((c) => {
      if (c.subcommands === undefined) return options(`__fish_seen_subcommand_from ${c.name}`, c);
      const subs = c.subcommands.map((s) => s.name).join(' ');
      return [
        ...c.subcommands.map(
          (s) =>
            `complete -c ${program} -n ${quoted(`__fish_seen_subcommand_from ${c.name}; and not __fish_seen_subcommand_from ${subs}`)} -f -a ${s.name} -d ${quoted(s.summary)}`,
        ),
        ...c.subcommands.flatMap((s) =>
          options(`__fish_seen_subcommand_from ${c.name}; and __fish_seen_subcommand_from ${s.name}`, s),
        ),
      ];
    }),
    // A leading flag belongs to the default command.
    ...(defaultSpec === undefined ? [] : options('__fish_use_subcommand', defaultSpec)),
    `complete -c ${program} -n '__fish_seen_subcommand_from completion' -f -a ${quoted(COMPLETION_SHELLS.join(' '))}`,
    `complete -c ${program} -n '__fish_seen_subcommand_from help' -f -a ${quoted(names.join(' '))}`,
  ];
  return `${lines.join('\n')}\n`;
}
