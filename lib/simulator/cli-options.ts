import {
  choiceValue,
  defineCommand,
  integerValue,
  nonEmptyValue,
  type OptionValues,
  parseCommandLine,
  renderHelp,
} from '../command-line';
import {
  DEFAULT_ACCESS_TOKEN_TTL_SECONDS,
  DEFAULT_REPORT_LATENCY_MS,
  DEFAULT_ROW_FORMAT,
  DEFAULT_ROW_LIMIT,
  DEFAULT_ROWS_PER_DAY,
  DEFAULT_SEED,
  DEFAULT_TENANT_COUNT,
  MAX_TENANTS,
} from './defaults';
import type { SimulatorOptions } from './index';

export { UsageError } from '../command-line';

/** Every option of `npm run sim`, with its help text and value check. */
export const SIM_OPTIONS = {
  port: {
    type: 'string',
    value: '<n>',
    help: 'TCP port on 127.0.0.1',
    defaultText: '0: any free port',
    parse: integerValue(0, 65_535),
  },
  json: { type: 'boolean', help: 'print one JSON line with the connection details once listening' },
  'auto-approve': { type: 'boolean', help: 'skip the login page: authorize redirects at once with a code' },
  'rotate-refresh-tokens': {
    type: 'boolean',
    help: 'refresh tokens are one-time; reuse revokes the token family',
  },
  'report-latency-ms': {
    type: 'string',
    value: '<n>',
    help: 'time a report request runs before Complete',
    defaultText: String(DEFAULT_REPORT_LATENCY_MS),
    parse: integerValue(0, 3_600_000),
  },
  'rows-per-day': {
    type: 'string',
    value: '<n>',
    help: 'generated calls per weekday',
    defaultText: String(DEFAULT_ROWS_PER_DAY),
    parse: integerValue(0, 10_000_000),
  },
  'row-limit': {
    type: 'string',
    value: '<n>',
    help: 'rows per result before rowLimitExceeded',
    defaultText: String(DEFAULT_ROW_LIMIT),
    parse: integerValue(1, 10_000_000),
  },
  'row-format': {
    type: 'string',
    value: '<f>',
    help: "result rows as 'object' or 'array', ordered like displayFields",
    defaultText: DEFAULT_ROW_FORMAT,
    parse: choiceValue(['object', 'array']),
  },
  'extra-templates': {
    type: 'boolean',
    help: "the default workspace also lists the simulator's own templates (CallListWithDetails, SummaryByUser)",
  },
  'summary-mismatch': {
    type: 'boolean',
    help: "every result's summary disagrees with its rows (ans +1, duration +60)",
  },
  'data-dir': {
    type: 'string',
    value: '<path>',
    help: 'persist directory items across restarts',
    parse: nonEmptyValue,
  },
  'living-directories': {
    type: 'boolean',
    help: 'directory items are added, edited and deleted as days pass (from the seed and the day)',
  },
  tenants: {
    type: 'string',
    value: '<n>',
    help: 'tenants hosted, each with its own user, zone, workspace, reports and calls (zones far apart)',
    defaultText: String(DEFAULT_TENANT_COUNT),
    parse: integerValue(1, MAX_TENANTS),
  },
  seed: {
    type: 'string',
    value: '<n>',
    help: 'seed of ids and generated calls',
    defaultText: String(DEFAULT_SEED),
    parse: integerValue(0, 4_294_967_295),
  },
  'access-token-ttl': {
    type: 'string',
    value: '<s>',
    help: 'access token lifetime in seconds',
    defaultText: String(DEFAULT_ACCESS_TOKEN_TTL_SECONDS),
    parse: integerValue(1, 31_536_000),
  },
  help: { type: 'boolean', short: 'h', help: 'show this help' },
} as const;

/** `npm run sim` as a command: its options and help. */
export const SIM_COMMAND = defineCommand({
  name: 'sim',
  usage: 'Usage: npm run sim -- [options]',
  summary: 'Starts the local reporting and contact-directory service (OAuth + API) on 127.0.0.1.',
  options: SIM_OPTIONS,
  examples: [
    'npm run sim -- --port 0 --json --auto-approve',
    'npm run sim -- --port 8080 --report-latency-ms 0 --data-dir .sim-data',
    'npm run sim -- --port 8080 --living-directories --data-dir .report-export/service',
  ],
  notes: `Once listening it prints the connection details (baseUrl, authUrl, clientId,
clientSecret, redirectUri, username, password, tenantId, workspaceId, reportIds,
directoryIds, all of the first tenant, then tenants: every tenant's id, name,
timeZoneId, workspaceId, reportIds, reports, username, password, directoryIds):
one JSON line with --json, else a readable block. With --auto-approve, an
authorize request's login_hint (a username) picks the tenant. It serves until
SIGINT or SIGTERM. Fault injection: POST {authUrl}/__admin/faults (lib/simulator/README.md).`,
});

export const SIM_USAGE = renderHelp(SIM_COMMAND);

interface SimCli {
  help: boolean;
  json: boolean;
  options: SimulatorOptions;
}

/** Parses the simulator's argv (without node and script). Throws UsageError (CLI_USAGE) on bad input. */
export function parseSimArgs(argv: readonly string[]): SimCli {
  const v: OptionValues<typeof SIM_OPTIONS> = parseCommandLine(SIM_COMMAND, argv);
  const options: SimulatorOptions = {};
  const set = <K extends keyof SimulatorOptions>(key: K, value: SimulatorOptions[K] | undefined) => {
    if (value !== undefined) options[key] = value;
  };
  set('port', v.port);
  set('autoApprove', v['auto-approve'] ? true : undefined);
  set('rotateRefreshTokens', v['rotate-refresh-tokens'] ? true : undefined);
  set('reportLatencyMs', v['report-latency-ms']);
  set('rowsPerDay', v['rows-per-day']);
  set('rowLimit', v['row-limit']);
  set('rowFormat', v['row-format']);
  set('extraTemplates', v['extra-templates'] ? true : undefined);
  set('summaryMismatch', v['summary-mismatch'] ? true : undefined);
  set('dataDir', v['data-dir']);
  set('livingDirectories', v['living-directories'] ? true : undefined);
  set('tenants', v.tenants);
  set('seed', v.seed);
  set('accessTokenTtlSeconds', v['access-token-ttl']);
  return { help: v.help, json: v.json, options };
}
