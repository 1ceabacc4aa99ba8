import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import {
  PRODUCTION_AUTH_URL,
  PRODUCTION_BASE_URL_TEMPLATE,
  productionBaseUrl,
  REGIONS,
  type Region,
} from '../../api/endpoints';
import { isIanaZone } from '../../calendar';
import { ConfigError, type ValueOption } from '../../command-line';
import { CLI_DEFAULTS } from './defaults';

/**
 * The CLI's configuration, in layers: a flag beats a `REPORT_EXPORT_*` variable, which
 * beats the config file (`--config <path>`, `REPORT_EXPORT_CONFIG`, or
 * `./report-export.config.json` when present), which beats the default. Every value
 * remembers where it came from, so `config show` can say it and an error can name it.
 */

const DEFAULT_CONFIG_FILE = 'report-export.config.json';

interface KeySpec {
  flag: string;
  env: string;
  value: string;
  help: string;
  /** Masked by `config show`; never offered as a flag (a flag shows in `ps`). */
  secret?: true;
  default?: () => string;
  /** How `--help` shows a default that is not a plain value (shown from `default` otherwise). */
  defaultText?: string;
  check?: (value: string) => string | undefined;
}

const url = (v: string): string | undefined => {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:' ? undefined : 'must be an http(s) URL';
  } catch {
    return 'must be an http(s) URL';
  }
};

/** Every setting: its flag, variable, placeholder, help, default and check. */
export const CONFIG_KEYS = {
  region: {
    flag: 'region',
    env: 'REPORT_EXPORT_REGION',
    value: '<uk|na|eu|au>',
    help: `production region: base URL ${PRODUCTION_BASE_URL_TEMPLATE}, auth ${PRODUCTION_AUTH_URL}`,
    check: (v) =>
      (REGIONS as readonly string[]).includes(v) ? undefined : `must be one of ${REGIONS.join(', ')}`,
  },
  baseUrl: {
    flag: 'base-url',
    env: 'REPORT_EXPORT_BASE_URL',
    value: '<url>',
    help: `API base URL, e.g. ${productionBaseUrl('uk')} (beats --region)`,
    check: url,
  },
  authUrl: {
    flag: 'auth-url',
    env: 'REPORT_EXPORT_AUTH_URL',
    value: '<url>',
    help: `authorization server, e.g. ${PRODUCTION_AUTH_URL} (beats --region)`,
    check: url,
  },
  clientId: { flag: 'client-id', env: 'REPORT_EXPORT_CLIENT_ID', value: '<id>', help: 'OAuth client id' },
  clientSecret: {
    flag: 'client-secret',
    env: 'REPORT_EXPORT_CLIENT_SECRET',
    value: '<secret>',
    help: 'OAuth client secret (environment or config file only; else prompted)',
    secret: true,
  },
  redirectUri: {
    flag: 'redirect-uri',
    env: 'REPORT_EXPORT_REDIRECT_URI',
    value: '<url>',
    help: 'registered loopback redirect, http or https',
    default: () => CLI_DEFAULTS.redirectUri,
    check: url,
  },
  secretFile: {
    flag: 'secret-file',
    env: 'REPORT_EXPORT_SECRET_FILE',
    value: '<path>',
    help: 'local secret file, mode 0600',
    default: () => CLI_DEFAULTS.loginFile,
    defaultText: `./${CLI_DEFAULTS.loginFile}`,
  },
  secretId: {
    flag: 'secret-id',
    env: 'REPORT_EXPORT_SECRET_ID',
    value: '<arn|name>',
    help: 'AWS Secrets Manager secret instead of a local file',
  },
  workspace: {
    flag: 'workspace',
    env: 'REPORT_EXPORT_WORKSPACE_ID',
    value: '<id>',
    help: 'workspace id',
    defaultText: "the service's default workspace",
  },
  timeZone: {
    flag: 'time-zone',
    env: 'REPORT_EXPORT_TIME_ZONE',
    value: '<iana>',
    // No default: this machine's zone is not the tenant's, and a run in another is refused.
    help: "the tenant's IANA time zone: days and partitions (dt) are local to it (required by run)",
    check: (v) => (isIanaZone(v) ? undefined : 'must be an IANA time zone, e.g. Europe/London'),
  },
  leaseStore: {
    flag: 'lease-store',
    env: 'REPORT_EXPORT_LEASE_STORE_URI',
    value: '<uri>',
    help: "leases (token refresh, partitions): file:///dir or s3://bucket/prefix; share the deployment's when it uses the same secret",
    defaultText: `partitions ./${CLI_DEFAULTS.stateDir}/leases, token refresh beside the secret file, or per user for a Secrets Manager secret`,
  },
  s3Endpoint: {
    flag: 's3-endpoint',
    env: 'REPORT_EXPORT_S3_ENDPOINT',
    value: '<url>',
    help: 'S3-compatible endpoint (path-style), e.g. a local S3 for tests',
    check: url,
  },
  stateMachineArn: {
    flag: 'state-machine-arn',
    env: 'REPORT_EXPORT_STATE_MACHINE_ARN',
    value: '<arn>',
    help: 'the deployed ReportExport state machine',
    check: (v) =>
      v.startsWith('arn:') && v.includes(':stateMachine:') ? undefined : 'must be a state machine ARN',
  },
} as const satisfies Record<string, KeySpec>;

export type ConfigKey = keyof typeof CONFIG_KEYS;
type ConfigSource = 'flag' | 'env' | 'file' | 'default';

export interface ConfigValue {
  value: string;
  source: ConfigSource;
  /** The flag, variable, file or `default`, for messages and `config show`. */
  where: string;
}

export type ResolvedConfig = Partial<Record<ConfigKey, ConfigValue>> & {
  /** The config file read, if any. */
  readonly file?: string;
};

type FlagOf<K extends ConfigKey> = (typeof CONFIG_KEYS)[K]['flag'];
type NonSecretKey = {
  [K in ConfigKey]: (typeof CONFIG_KEYS)[K] extends { secret: true } ? never : K;
}[ConfigKey];

/** Every setting a flag may give (all but the secret ones), in the order of {@link CONFIG_KEYS}. */
export const FLAG_KEYS: readonly NonSecretKey[] = (Object.keys(CONFIG_KEYS) as ConfigKey[]).filter(
  (key): key is NonSecretKey => !('secret' in CONFIG_KEYS[key]),
);

/** The command-line options of the given settings, to spread into a command's options. */
export function configOptions<const K extends NonSecretKey>(
  keys: readonly K[],
): { [P in K as FlagOf<P>]: ValueOption<string> } {
  const out: Record<string, ValueOption<string>> = {};
  for (const key of keys) {
    const spec: KeySpec = CONFIG_KEYS[key];
    // The default is applied by resolveConfig, after the environment and the config file.
    const shown = spec.defaultText ?? spec.default?.();
    out[spec.flag] = {
      type: 'string',
      value: spec.value,
      help: spec.help,
      ...(shown === undefined ? {} : { defaultText: shown }),
    };
  }
  return out as { [P in K as FlagOf<P>]: ValueOption<string> };
}

/** The `--config <path>` option every command that reads configuration takes. */
export const CONFIG_FILE_OPTION = {
  config: {
    type: 'string',
    value: '<path>',
    help: 'config file, JSON',
    defaultText: `./${DEFAULT_CONFIG_FILE} when present`,
  },
} as const satisfies Record<string, ValueOption<string>>;

interface ResolveConfigInput {
  /** Parsed option values by flag name (extra flags are ignored). */
  flags: Readonly<Record<string, unknown>>;
  /** The command's environment (`io.env`). */
  env: Readonly<Record<string, string | undefined>>;
  /** The command's working directory (`io.cwd`): where ./report-export.config.json is looked for. */
  cwd: string;
}

/** Reads the layers and validates every value; a bad one is a ConfigError naming its source. */
export async function resolveConfig(input: ResolveConfigInput): Promise<ResolvedConfig> {
  const env = input.env;
  const cwd = input.cwd;
  const { file, values: fileValues } = await readConfigFile(input.flags.config, env, cwd);
  const out: Partial<Record<ConfigKey, ConfigValue>> = {};
  for (const [key, raw] of Object.entries(CONFIG_KEYS) as [ConfigKey, KeySpec][]) {
    const flag = raw.secret ? undefined : input.flags[raw.flag];
    const envValue = env[raw.env];
    let v: ConfigValue | undefined;
    if (typeof flag === 'string') v = { value: flag, source: 'flag', where: `--${raw.flag}` };
    else if (envValue !== undefined && envValue !== '')
      v = { value: envValue, source: 'env', where: raw.env };
    else if (fileValues[key] !== undefined && file !== undefined)
      v = { value: fileValues[key], source: 'file', where: `${file} (${key})` };
    else if (raw.default) v = { value: raw.default(), source: 'default', where: 'default' };
    if (v === undefined) continue;
    const problem = v.value === '' ? 'must not be empty' : raw.check?.(v.value);
    if (problem !== undefined) {
      const shown = raw.secret ? '' : `, got '${v.value}'`;
      throw new ConfigError(`${v.where} ${problem}${shown}`);
    }
    out[key] = v;
  }
  return file === undefined ? out : { ...out, file };
}

async function readConfigFile(
  flag: unknown,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): Promise<{ file?: string; values: Partial<Record<ConfigKey, string>> }> {
  const named =
    typeof flag === 'string' ? flag : env.REPORT_EXPORT_CONFIG ? env.REPORT_EXPORT_CONFIG : undefined;
  const file = path.resolve(cwd, named ?? DEFAULT_CONFIG_FILE);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (cause) {
    // Only a file someone named must exist.
    if (named === undefined && (cause as { code?: string }).code === 'ENOENT') return { values: {} };
    throw new ConfigError(`cannot read config file ${file}: ${(cause as Error).message}`, { cause });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError(`config file ${file} is not JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`config file ${file} must hold a JSON object`);
  }
  const values: Partial<Record<ConfigKey, string>> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (!Object.hasOwn(CONFIG_KEYS, key)) {
      throw new ConfigError(
        `config file ${file}: unknown key '${key}' (known: ${Object.keys(CONFIG_KEYS).join(', ')})`,
      );
    }
    if (typeof value !== 'string') throw new ConfigError(`config file ${file}: ${key} must be a string`);
    values[key as ConfigKey] = value;
  }
  return { file, values };
}

const RANK: Record<ConfigSource, number> = { flag: 3, env: 2, file: 1, default: 0 };

/** Where the service secret lives: a Secrets Manager secret or a local file. */
export type SecretLocation =
  | { kind: 'secrets-manager'; secretId: string; where: string }
  | { kind: 'file'; file: string; where: string };

/**
 * The secret named by the higher layer of `secretId` and `secretFile` (the file has a
 * default, so a secret id from any layer beats the default file); both at one layer is
 * ambiguous.
 */
export function secretLocation(config: ResolvedConfig, cwd: string): SecretLocation {
  const { secretId, secretFile } = config;
  if (
    secretId !== undefined &&
    secretFile !== undefined &&
    RANK[secretId.source] === RANK[secretFile.source]
  ) {
    throw new ConfigError(`${secretId.where} and ${secretFile.where} both name the secret: give one`);
  }
  if (
    secretId !== undefined &&
    (secretFile === undefined || RANK[secretId.source] > RANK[secretFile.source])
  ) {
    return { kind: 'secrets-manager', secretId: secretId.value, where: secretId.where };
  }
  const file = secretFile ?? { value: CONFIG_KEYS.secretFile.default(), where: 'default' };
  return { kind: 'file', file: path.resolve(cwd, file.value), where: file.where };
}

/**
 * The service URLs the configuration names, or undefined: an explicit URL beats the
 * region's at the same or a lower layer (`--region eu` beats a base URL in the file).
 */
export function serviceUrls(config: ResolvedConfig): { baseUrl?: ConfigValue; authUrl?: ConfigValue } {
  const region = config.region;
  const pick = (explicit: ConfigValue | undefined, regional: string): ConfigValue | undefined => {
    if (region === undefined || (explicit !== undefined && RANK[explicit.source] >= RANK[region.source]))
      return explicit;
    return { value: regional, source: region.source, where: `${region.where} ${region.value}` };
  };
  const baseUrl = pick(config.baseUrl, productionBaseUrl(region?.value as Region));
  const authUrl = pick(config.authUrl, PRODUCTION_AUTH_URL);
  return {
    ...(baseUrl === undefined ? {} : { baseUrl }),
    ...(authUrl === undefined ? {} : { authUrl }),
  };
}
