import * as fs from 'node:fs/promises';
import { argsOfVerb, parseOrHelp } from '../../../command-line';
import type { ServiceSecret } from '../../../workflow';
import {
  CONFIG_KEYS,
  type ConfigKey,
  type ConfigValue,
  type ResolvedConfig,
  resolveConfig,
  secretLocation,
  serviceUrls,
} from '../../shared/config';
import type { IOStreams } from '../../shared/io-streams';
import { colors, renderTable } from '../../shared/terminal';
import { CONFIG_COMMAND } from './spec';

/** What `config show` prints in place of a secret value. */
const MASK = '********';

/** One setting as shown: secrets masked. */
interface ShownSetting {
  value: string;
  source: ConfigValue['source'];
  where: string;
}

function shown(key: ConfigKey | 'effectiveBaseUrl' | 'effectiveAuthUrl', v: ConfigValue): ShownSetting {
  const secret = key in CONFIG_KEYS && 'secret' in CONFIG_KEYS[key as ConfigKey];
  return { value: secret ? MASK : v.value, source: v.source, where: v.where };
}

/** The settings as `config show` reports them (secret values masked). */
function describeConfig(config: ResolvedConfig): Record<string, ShownSetting> {
  const out: Record<string, ShownSetting> = {};
  for (const key of Object.keys(CONFIG_KEYS) as ConfigKey[]) {
    const v = config[key];
    if (v !== undefined) out[key] = shown(key, v);
  }
  const urls = serviceUrls(config);
  if (urls.baseUrl && config.baseUrl === undefined) out.baseUrl = shown('effectiveBaseUrl', urls.baseUrl);
  if (urls.authUrl && config.authUrl === undefined) out.authUrl = shown('effectiveAuthUrl', urls.authUrl);
  return out;
}

/** What a local secret file holds, without a secret value. */
async function describeSecretFile(file: string): Promise<Record<string, string> | undefined> {
  let all: Record<string, unknown>;
  try {
    all = JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const s = all.service as Partial<ServiceSecret> | undefined;
  if (typeof s !== 'object' || s === null) return undefined;
  const mask = (v: unknown) => (typeof v === 'string' && v !== '' ? MASK : '(none)');
  return {
    authUrl: String(s.authUrl ?? ''),
    baseUrl: String(s.baseUrl ?? ''),
    clientId: String(s.clientId ?? ''),
    clientSecret: mask(s.clientSecret),
    redirectUri: String(s.redirectUri ?? ''),
    refreshToken: mask(s.refreshToken),
    accessToken: mask(s.accessToken),
    accessTokenExpiresAt:
      typeof s.accessTokenExpiresAt === 'number' ? new Date(s.accessTokenExpiresAt).toISOString() : '(none)',
  };
}

export async function configCommand(argv: readonly string[], io: IOStreams): Promise<number> {
  const v = parseOrHelp(CONFIG_COMMAND, argsOfVerb(CONFIG_COMMAND, argv), io.stdout);
  if (v === undefined) return 0;
  const config = await resolveConfig({ flags: v, env: io.env, cwd: io.cwd });
  const settings = describeConfig(config);
  const location = secretLocation(config, io.cwd);
  const secret = location.kind === 'file' ? await describeSecretFile(location.file) : undefined;
  if (v.json) {
    io.stdout.write(
      `${JSON.stringify({ configFile: config.file ?? null, settings, secretLocation: location, secret: secret ?? null })}\n`,
    );
    return 0;
  }
  const c = colors(io.stdout, io.env);
  const rows = Object.entries(settings).map(([key, s]) => ({ setting: key, value: s.value, from: s.where }));
  io.stdout.write(renderTable(rows, ['setting', 'value', 'from'], { header: c.bold }));
  io.stdout.write(`\nconfig file: ${config.file ?? '(none)'}\n`);
  const where = location.kind === 'file' ? location.file : `Secrets Manager ${location.secretId}`;
  io.stdout.write(
    `secret:      ${where}${secret === undefined && location.kind === 'file' ? ' (not written yet: run login)' : ''}\n`,
  );
  if (secret !== undefined) {
    const secretRows = Object.entries(secret).map(([key, value]) => ({ key, value }));
    io.stdout.write(`\n${renderTable(secretRows, ['key', 'value'], { header: c.bold })}`);
  }
  return 0;
}
