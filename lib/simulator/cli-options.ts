import { type ParseArgsConfig, parseArgs } from 'node:util';
import type { SimulatorOptions } from './index';

/** A command line the simulator cannot run with (exit status 2). */
export class CliUsageError extends Error {
  readonly code = 'CLI_USAGE';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'CliUsageError';
  }
}

/** Every option the command accepts (the usage text must name each one). */
export const SIM_OPTIONS = {
  port: { type: 'string' },
  json: { type: 'boolean' },
  'auto-approve': { type: 'boolean' },
  'rotate-refresh-tokens': { type: 'boolean' },
  'report-latency-ms': { type: 'string' },
  'rows-per-day': { type: 'string' },
  'row-limit': { type: 'string' },
  'row-format': { type: 'string' },
  'data-dir': { type: 'string' },
  seed: { type: 'string' },
  'access-token-ttl': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

export const SIM_USAGE = `Usage: npm run sim -- [options]

Starts the local reporting and contact-directory service (OAuth + API) on 127.0.0.1.

Options:
  --port <n>                 TCP port on 127.0.0.1 (default 0: any free port)
  --json                     print one JSON line with the connection details once listening
  --auto-approve             skip the login page: authorize redirects at once with a code
  --rotate-refresh-tokens    refresh tokens are one-time; reuse revokes the token family
  --report-latency-ms <n>    time a report request runs before Complete (default 1500)
  --rows-per-day <n>         generated calls per weekday (default 500)
  --row-limit <n>            rows per result before rowLimitExceeded (default 1000000)
  --row-format <f>           result rows as 'object' (default) or 'array' (ordered like displayFields)
  --data-dir <path>          persist directory items across restarts
  --seed <n>                 seed of ids and generated calls (default 20260101)
  --access-token-ttl <s>     access token lifetime in seconds (default 5400)
  -h, --help                 show this help

Once listening it prints the connection details (baseUrl, authUrl, clientId,
clientSecret, redirectUri, username, password, tenantId, workspaceId, reportIds,
directoryIds): one JSON line with --json, else a readable block. It serves until
SIGINT or SIGTERM. Fault injection: POST {authUrl}/__admin/faults (lib/simulator/README.md).

Examples:
  npm run sim -- --port 0 --json --auto-approve
  npm run sim -- --port 8080 --report-latency-ms 0 --data-dir .sim-data
`;

export interface SimCli {
  help: boolean;
  json: boolean;
  options: SimulatorOptions;
}

function integer(name: string, raw: string | undefined, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) {
    throw new CliUsageError(`--${name} must be an integer from ${min} to ${max}, got '${raw}'`);
  }
  return n;
}

/** Parses the simulator's argv (without node and script). Throws CliUsageError on bad input. */
export function parseSimArgs(argv: string[]): SimCli {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: SIM_OPTIONS,
    }));
  } catch (error) {
    throw new CliUsageError((error as Error).message, { cause: error });
  }
  const str = (name: string) => values[name] as string | undefined;
  const options: SimulatorOptions = {};
  const set = <K extends keyof SimulatorOptions>(key: K, value: SimulatorOptions[K] | undefined) => {
    if (value !== undefined) options[key] = value;
  };
  set('port', integer('port', str('port'), 0, 65_535));
  set('autoApprove', values['auto-approve'] === true ? true : undefined);
  set('rotateRefreshTokens', values['rotate-refresh-tokens'] === true ? true : undefined);
  set('reportLatencyMs', integer('report-latency-ms', str('report-latency-ms'), 0, 3_600_000));
  set('rowsPerDay', integer('rows-per-day', str('rows-per-day'), 0, 10_000_000));
  set('rowLimit', integer('row-limit', str('row-limit'), 1, 10_000_000));
  set('seed', integer('seed', str('seed'), 0, 4_294_967_295));
  set('accessTokenTtlSeconds', integer('access-token-ttl', str('access-token-ttl'), 1, 31_536_000));
  const rowFormat = str('row-format');
  if (rowFormat !== undefined) {
    if (rowFormat !== 'object' && rowFormat !== 'array') {
      throw new CliUsageError(`--row-format must be 'object' or 'array', got '${rowFormat}'`);
    }
    options.rowFormat = rowFormat;
  }
  const dataDir = str('data-dir');
  if (dataDir !== undefined) {
    if (dataDir.length === 0) throw new CliUsageError('--data-dir must not be empty');
    options.dataDir = dataDir;
  }
  return { help: values.help === true, json: values.json === true, options };
}
