import type { CommandSpec } from '../command-line/options';

/** Shells `completion` writes a script for. */
export const COMPLETION_SHELLS = ['bash', 'zsh', 'fish'] as const;
export type CompletionShell = (typeof COMPLETION_SHELLS)[number];

/** Words a shell may complete after `report-export <command>`: its flags, long and short. */
function flagsOf(spec: CommandSpec): string[] {
  return Object.entries(spec.options).flatMap(([name, o]) => [
    `--${name}`,
    ...(o.short === undefined ? [] : [`-${o.short}`]),
  ]);
}

/** A word safe inside single quotes in every shell here. */
const quoted = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * The completion script of `program` for `shell`, from the commands' own specs: command
 * names (with their summaries where the shell shows them), then each command's flags. Made
 * from the same list `--help` prints, so a new command or flag completes without an edit.
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
  extraCommands: readonly { name: string; summary: string }[] = [],
): string {
  const names = [...commands.map((c) => c.name), ...extraCommands.map((c) => c.name)];
  const fn = `_${program.replace(/[^A-Za-z0-9]/g, '_')}`;
  if (shell === 'fish') {
    const lines = [
      `complete -c ${program} -f`,
      ...[...commands, ...extraCommands].map(
        (c) => `complete -c ${program} -n '__fish_use_subcommand' -a ${c.name} -d ${quoted(c.summary)}`,
      ),
      ...commands.flatMap((c) =>
        Object.entries(c.options).map(
          ([name, o]) =>
            `complete -c ${program} -n '__fish_seen_subcommand_from ${c.name}' -l ${name}${o.short === undefined ? '' : ` -s ${o.short}`}${o.type === 'string' ? ' -r' : ''} -d ${quoted(o.help)}`,
        ),
      ),
      `complete -c ${program} -n '__fish_seen_subcommand_from completion' -a '${COMPLETION_SHELLS.join(' ')}'`,
    ];
    return `${lines.join('\n')}\n`;
  }
  const cases = commands.map((c) => `    ${c.name}) words=${quoted(flagsOf(c).join(' '))} ;;`).join('\n');
  const body = `${fn}() {
  local cur=\${COMP_WORDS[COMP_CWORD]} words
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=( $(compgen -W ${quoted(names.join(' '))} -- "$cur") )
    return
  fi
  case "\${COMP_WORDS[1]}" in
${cases}
    completion) words=${quoted(COMPLETION_SHELLS.join(' '))} ;;
    help) words=${quoted(commands.map((c) => c.name).join(' '))} ;;
    *) words='' ;;
  esac
  COMPREPLY=( $(compgen -W "$words" -- "$cur") )
}
complete -o default -F ${fn} ${program}
`;
  // zsh runs bash completion functions through bashcompinit.
  return shell === 'zsh' ? `autoload -U +X bashcompinit && bashcompinit\n${body}` : body;
}
