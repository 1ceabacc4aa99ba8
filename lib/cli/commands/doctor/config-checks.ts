import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { type ResolvedConfig, resolveConfig } from '../../shared/config';
import type { IOStreams } from '../../shared/io-streams';
import { type Check, check } from './report';

/** The stack's settings the AWS checks judge against, and where they came from. */
export interface StackSettings {
  /** `<path> (reportExport)`, or `the stack's defaults` without a cdk.json. */
  source: string;
  tenancy: 'single' | 'multi';
  databaseName: string;
  exportMemoryMb: number;
  mapConcurrency: number;
}

/** The all-zero id the cdk.json of the clone carries until the real workspace is put in (docs/deploy.md, step 6). */
const PLACEHOLDER_ID = /^0{8}-0{4}-0{4}-0{4}-0{11}[01]$/;

/**
 * `config.settings`: the CLI's configuration (flags, REPORT_EXPORT_*, the config file) resolves,
 * every value checked as a command checks it; the resolved configuration, or undefined.
 */
export async function configSettingsCheck(
  flags: Readonly<Record<string, unknown>>,
  io: Pick<IOStreams, 'env' | 'cwd'>,
): Promise<{ check: Check; config: ResolvedConfig | undefined }> {
  try {
    const config = await resolveConfig({ flags, env: io.env, cwd: io.cwd });
    const from = config.file === undefined ? 'no config file' : `config file ${config.file}`;
    return { check: check('config.settings', 'ok', `every setting is valid (${from})`), config };
  } catch (error) {
    return {
      check: check('config.settings', 'fail', (error as Error).message, {
        fix: 'correct the value it names (report-export config show lists every setting and where it comes from)',
      }),
      config: undefined,
    };
  }
}

/**
 * `config.stack`: the cdk.json the stack deploys from, its `context.reportExport` validated by
 * the stack's own parser (`configFromContext`, what synthesis runs), so a value synthesis
 * would refuse is named here; the settings the AWS checks need (the stack's defaults when no
 * cdk.json is there). The stack's code (CDK) is loaded only now: the command starts without it.
 */
export async function stackConfigCheck(
  file: string | undefined,
  cwd: string,
): Promise<{ check: Check; settings: StackSettings }> {
  const { configFromContext, STACK_DEFAULTS } = await import('../../../infra');
  const defaults: StackSettings = {
    source: "the stack's defaults",
    tenancy: STACK_DEFAULTS.tenancy,
    databaseName: STACK_DEFAULTS.databaseName,
    exportMemoryMb: STACK_DEFAULTS.exportMemoryMb,
    mapConcurrency: STACK_DEFAULTS.mapConcurrency,
  };
  const where = path.resolve(cwd, file ?? 'cdk.json');
  let text: string;
  try {
    text = await fs.readFile(where, 'utf8');
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOENT' || file !== undefined) {
      const why =
        (error as { code?: string }).code === 'ENOENT' ? 'does not exist' : (error as Error).message;
      const c = check('config.stack', 'fail', `--cdk-json ${where} ${why}`, {
        fix: 'give the cdk.json of the clone you deploy from',
      });
      return { check: c, settings: defaults };
    }
    const c = check('config.stack', 'skip', `no cdk.json in ${cwd}: the AWS checks use ${defaults.source}`, {
      fix: 'run doctor in the clone you deploy from, or give --cdk-json',
    });
    return { check: c, settings: defaults };
  }
  let context: unknown;
  try {
    context = (JSON.parse(text) as { context?: { reportExport?: unknown } } | null)?.context?.reportExport;
  } catch {
    return {
      check: check('config.stack', 'fail', `${where} is not JSON`, {
        fix: 'repair it: cdk synth reads it too',
      }),
      settings: defaults,
    };
  }
  if (context === undefined) {
    const c = check('config.stack', 'fail', `${where} has no context.reportExport: synthesis needs it`, {
      fix: 'put the reportExport settings under context (docs/deploy.md, "Configuration")',
    });
    return { check: c, settings: defaults };
  }
  let config: ReturnType<typeof configFromContext>;
  try {
    config = configFromContext(context);
  } catch (error) {
    const c = check('config.stack', 'fail', `${where}: ${(error as Error).message}`, {
      fix: `correct each setting it names in ${where} (docs/deploy.md, "Configuration")`,
    });
    return { check: c, settings: defaults };
  }
  const settings: StackSettings = {
    source: `${where} (reportExport)`,
    tenancy: config.tenancy ?? defaults.tenancy,
    databaseName: config.databaseName ?? defaults.databaseName,
    exportMemoryMb: config.exportMemoryMb ?? defaults.exportMemoryMb,
    mapConcurrency: config.mapConcurrency ?? defaults.mapConcurrency,
  };
  const placeholders = [
    ...(config.workspaceId !== undefined && PLACEHOLDER_ID.test(config.workspaceId) ? ['workspaceId'] : []),
    ...(config.reports ?? []).filter((r) => PLACEHOLDER_ID.test(r.id)).map((r) => `report ${r.id}`),
  ];
  const described = `${settings.tenancy}-tenant, database ${settings.databaseName}, ExportResults ${settings.exportMemoryMb} MB, mapConcurrency ${settings.mapConcurrency}`;
  if (placeholders.length > 0) {
    const held = `the example's placeholder ${placeholders.join(' and ')}`;
    const pick =
      'pick the real ones with report-export workspaces list and reports list (docs/deploy.md, steps 5 and 6)';
    // A first deploy keeps them with the schedule off (docs/deploy.md, step 1): only a schedule that runs on them fails.
    if (config.schedule?.enabled === false) {
      const c = check(
        'config.stack',
        'ok',
        `${where}: valid (${described}); ${held}, fine while the schedule is off`,
        {
          fix: `${pick} before turning it on`,
        },
      );
      return { check: c, settings };
    }
    const c = check(
      'config.stack',
      'warn',
      `${where}: ${held}, and the schedule on: every nightly run would fail`,
      {
        fix: `${pick}, or set "schedule": { "enabled": false } until then`,
      },
    );
    return { check: c, settings };
  }
  return { check: check('config.stack', 'ok', `${where}: valid (${described})`), settings };
}
