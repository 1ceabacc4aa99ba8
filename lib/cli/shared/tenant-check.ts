import {
  type CommandSpec,
  type OptionValues,
  parseCommandLine,
  renderHelp,
  UsageError,
} from '../../command-line';
import { TENANT_ID_PATTERN, TENANT_ID_RULE } from '../../export';
import type { IOStreams } from './io-streams';
import { splitPositionals } from './positionals';

/** `--tenant`'s value checked as a tenant id (a usage error naming it), or undefined when not given. */
export function checkedTenant(value: string | undefined, flag = '--tenant'): string | undefined {
  if (value === undefined) return undefined;
  if (!TENANT_ID_PATTERN.test(value))
    throw new UsageError(`${flag} must be ${TENANT_ID_RULE}, got '${value}'`);
  return value;
}

/**
 * A `tenants` subcommand's options and its `<id>` (`one`: required, `optional`: status),
 * undefined once --help is printed. A malformed id is a usage error naming it.
 */
export function parseTenantsSubcommand<O extends CommandSpec['options']>(
  spec: CommandSpec<O>,
  argv: readonly string[],
  io: Pick<IOStreams, 'stdout'>,
  arity: 'one' | 'optional' | 'none',
): { v: OptionValues<O>; id: string | undefined } | undefined {
  const { flags, positionals } = splitPositionals(spec, argv);
  const v = parseCommandLine(spec, flags);
  if ((v as { help?: boolean }).help) {
    io.stdout.write(renderHelp(spec));
    return undefined;
  }
  const max = arity === 'none' ? 0 : 1;
  if (positionals.length > max)
    throw new UsageError(`tenants ${spec.name}: unexpected argument '${positionals[max]}'`);
  const [id] = positionals;
  if (id === undefined) {
    if (arity === 'one') throw new UsageError(`tenants ${spec.name} needs the tenant's <id>`);
    return { v, id: undefined };
  }
  if (!TENANT_ID_PATTERN.test(id)) {
    throw new UsageError(`tenants ${spec.name}: <id> must be ${TENANT_ID_RULE}, got '${id}'`);
  }
  return { v, id };
}
