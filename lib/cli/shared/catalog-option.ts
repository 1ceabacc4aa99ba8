import { UsageError, type ValueParser } from '../../command-line';
import { parseCatalogSetting } from '../../stores';

/**
 * `--catalog` of the commands that write the lake (`run`, `npm start`): where the Parquet
 * datasets' Iceberg tables are registered, as the workflow's TABLE_CATALOG names it. `file`
 * (the default: a file catalog beside the data), `glue:<database>` (a deployment's Glue
 * tables: `run` into its DataLakeUri must commit through the same catalog as the deployment,
 * or the two would keep different histories of one table) or `hive` (no tables: Hive-layout
 * Parquet beside the CSV, for readers without a catalog).
 */
export function catalogOption(kinds: readonly ('file' | 'hive' | 'glue')[]) {
  const shown = kinds.map((k) => (k === 'glue' ? 'glue:<database>' : k));
  const parse: ValueParser<string> = (raw, flag) => {
    let kind: string;
    try {
      kind = parseCatalogSetting(flag, raw).kind;
    } catch (cause) {
      throw new UsageError(`${flag} must be one of ${shown.join(', ')}, got '${raw}'`, { cause });
    }
    if (!(kinds as readonly string[]).includes(kind)) {
      throw new UsageError(`${flag} must be one of ${shown.join(', ')}, got '${raw}'`);
    }
    return raw;
  };
  return {
    type: 'string',
    value: `<${shown.join('|')}>`,
    help: `the Parquet's Iceberg tables: file (a catalog beside the data)${kinds.includes('glue') ? ", glue:<database> (a deployment's Glue tables)" : ''}, or hive (Hive-layout Parquet, no tables)`,
    default: 'file',
    parse,
  } as const;
}
