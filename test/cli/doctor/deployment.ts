import { mkdir, readdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import type { IOStreams } from '../../../lib/cli/shared/io-streams';
import { writeTableLake } from '../tables/table-lake';

/**
 * Secret values of the fixtures: long and unlike any other word, so a test can look for each
 * in everything doctor printed and never find it by chance.
 */
export const SECRETS = {
  clientSecret: 'cs-7f3a9e1b-CLIENT-SECRET-value',
  refreshToken: 'rt-51c0d2aa-REFRESH-TOKEN-value',
  accessToken: 'at-0e99b7c4-ACCESS-TOKEN-value',
  rotatedRefreshToken: 'rt-8d2f6a10-ROTATED-REFRESH-value',
  rotatedAccessToken: 'at-3b7c9f25-ROTATED-ACCESS-value',
  envClientSecret: 'env-4c1e8b7d-CLIENT-SECRET-value',
} as const;

/** The secret values found in `text` (none, when doctor redacted everything). */
export function leakedSecrets(text: string): string[] {
  return Object.values(SECRETS).filter((s) => text.includes(s));
}

/** A registry entry as `tenants add` writes it. */
export function tenantEntry(id: string, more: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    name: `Tenant ${id}`,
    region: 'uk',
    timeZone: 'Europe/London',
    workspaceId: 'ws-1',
    reports: [{ id: 'r-1', name: 'Lost calls' }],
    hour: 2,
    lookBackDays: 1,
    enabled: true,
    ...more,
  };
}

/** A stored login (the JSON of a login's secret) with the fixtures' secret values. */
export function storedLogin(more: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    authUrl: 'https://login.example.test',
    baseUrl: 'https://api.example.test/api',
    clientId: 'my-app',
    clientSecret: SECRETS.clientSecret,
    redirectUri: 'http://127.0.0.1:8000/',
    refreshToken: SECRETS.refreshToken,
    accessToken: SECRETS.accessToken,
    accessTokenExpiresAt: Date.parse('2026-12-01T00:00:00Z'),
    ...more,
  };
}

/** What a deployment directory holds: tenants (entry, and a login unless `login: false`), a lake, a cdk.json. */
export interface DeploymentFixture {
  tenants?: { id: string; login?: boolean; entry?: Record<string, unknown> }[];
  lake?: boolean;
  /** The reportExport context of ./cdk.json; undefined: no cdk.json. */
  cdk?: Record<string, unknown>;
}

/** A valid multi-tenant stack configuration, as cdk.json holds it. */
export const MULTI_TENANT_CDK = { tenancy: 'multi', dataStartDate: '2026-01-01' };

/**
 * Writes a local deployment as `npm start` and `tenants add` / `tenants login` keep it under
 * `cwd`: `.report-export/tenants/<id>.json`, `.report-export/secrets/<id>.json` (mode 0600),
 * a lake `data-lake` written by the real export into Iceberg tables, and `cdk.json`.
 */
export async function writeDeployment(cwd: string, fixture: DeploymentFixture): Promise<void> {
  const tenants = path.join(cwd, '.report-export', 'tenants');
  const secrets = path.join(cwd, '.report-export', 'secrets');
  await mkdir(tenants, { recursive: true });
  await mkdir(secrets, { recursive: true });
  for (const t of fixture.tenants ?? []) {
    await writeFile(path.join(tenants, `${t.id}.json`), JSON.stringify(t.entry ?? tenantEntry(t.id)));
    if (t.login !== false) {
      await writeFile(path.join(secrets, `${t.id}.json`), JSON.stringify({ service: storedLogin() }), {
        mode: 0o600,
      });
    }
  }
  if (fixture.lake === true) {
    await mkdir(path.join(cwd, 'data-lake'), { recursive: true });
    await writeTableLake(path.join(cwd, 'data-lake'));
  }
  if (fixture.cdk !== undefined) {
    await writeFile(
      path.join(cwd, 'cdk.json'),
      JSON.stringify({ app: 'npx tsx bin/app.ts', context: { reportExport: fixture.cdk } }),
    );
  }
}

/** The newest metadata file of a table of the lake under `cwd` (`v<N>.metadata.json`, N highest). */
export async function newestMetadata(cwd: string, table: string): Promise<string> {
  const dir = path.join(cwd, 'data-lake', 'tables', table, 'metadata');
  const versions = (await readdir(dir))
    .map((f) => /^v(\d+)\.metadata\.json$/.exec(f))
    .filter((m): m is RegExpExecArray => m !== null)
    .sort((a, b) => Number(b[1]) - Number(a[1]));
  if (versions[0] === undefined) throw new Error(`no metadata file in ${dir}`);
  return path.join(dir, versions[0][0]);
}

/** Streams of strings for a command called in-process, and what it wrote. */
export function streams(
  cwd: string,
  env: IOStreams['env'] = {},
): { io: IOStreams; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    io: {
      stdin: Readable.from([]),
      stdout: { write: (chunk: string) => (out += chunk) },
      stderr: { write: (chunk: string) => (err += chunk) },
      env: { NO_COLOR: '1', ...env },
      cwd,
    },
    out: () => out,
    err: () => err,
  };
}

/** The checks of a `doctor --json` report, as `<id>[ <subject>]: <status>`, in order. */
export function statuses(report: {
  checks: { id: string; subject: string | null; status: string }[];
}): string[] {
  return report.checks.map((c) => `${c.id}${c.subject === null ? '' : ` ${c.subject}`}: ${c.status}`);
}
