import { ADMIN_PATHS } from './http/admin';
import type { RunningSimulator, SimTenantInfo } from './index';
import { DEFAULT_REDIRECT_URIS, OAUTH_PATHS } from './oauth';

/** What `npm run sim` prints once listening: one JSON line with `--json`, else the same for a person. */
export type ConnectionDetails = Pick<
  RunningSimulator,
  | 'baseUrl'
  | 'authUrl'
  | 'clientId'
  | 'clientSecret'
  | 'redirectUri'
  | 'username'
  | 'password'
  | 'tenantId'
  | 'workspaceId'
  | 'reportIds'
  | 'directoryIds'
> & {
  /** Every hosted tenant (the members above are the first one's). */
  tenants?: SimTenantInfo[];
};

/** Tenants listed for a person; `--json` lists every one. */
const TENANTS_SHOWN = 10;

/** The connection details of a running simulator (key order is the printed order). */
export function connectionDetails(sim: RunningSimulator): ConnectionDetails {
  return {
    baseUrl: sim.baseUrl,
    authUrl: sim.authUrl,
    clientId: sim.clientId,
    clientSecret: sim.clientSecret,
    redirectUri: sim.redirectUri,
    username: sim.username,
    password: sim.password,
    tenantId: sim.tenantId,
    workspaceId: sim.workspaceId,
    reportIds: sim.reportIds,
    directoryIds: sim.directoryIds,
    tenants: sim.tenants,
  };
}

/** The `--json` line. */
export function formatDetailsJson(details: ConnectionDetails): string {
  return `${JSON.stringify(details)}\n`;
}

/**
 * The same details for a person. These are local, seeded test credentials: printing them is
 * the point of the command (nothing here is a real secret).
 */
export function formatDetailsText(details: ConnectionDetails): string {
  const otherRedirects = DEFAULT_REDIRECT_URIS.filter((uri) => uri !== details.redirectUri);
  const rows: [string, string][] = [
    ['base_url (API)', `${details.baseUrl}  (endpoints under ${details.baseUrl}/v1.0/...)`],
    ['auth_url (OAuth)', details.authUrl],
    ['  authorize', `${details.authUrl}${OAUTH_PATHS.authorize}`],
    ['  token', `${details.authUrl}${OAUTH_PATHS.token}`],
    ['client_id', details.clientId],
    ['client_secret', details.clientSecret],
    ['redirect_uri', details.redirectUri],
    ['  also registered', otherRedirects.join(', ')],
    ['login (username)', details.username],
    ['login (password)', details.password],
    ['tenant', details.tenantId],
    ['workspace', details.workspaceId],
    ['reports', details.reportIds.join(', ')],
    ['directories', details.directoryIds.join(', ')],
    ['fault injection', `POST ${details.authUrl}${ADMIN_PATHS.faults} (see lib/simulator/README.md)`],
  ];
  const width = Math.max(...rows.map(([label]) => label.length)) + 2;
  return [
    'Local service listening on 127.0.0.1',
    ...rows.map(([label, value]) => `  ${label.padEnd(width)}${value}`),
    ...tenantLines(details.tenants ?? []),
    'Press Ctrl+C to stop.',
    '',
  ].join('\n');
}

/** One line per tenant (the first {@link TENANTS_SHOWN}): what logging in as it needs, and its ids. */
function tenantLines(tenants: readonly SimTenantInfo[]): string[] {
  if (tenants.length === 0) return [];
  const lines = tenants
    .slice(0, TENANTS_SHOWN)
    .map(
      (t, i) =>
        `  ${i + 1}. ${t.name} (${t.timeZoneId})  tenant ${t.id}  login ${t.username} / ${t.password}  ` +
        `workspace ${t.workspaceId}  reports ${t.reportIds.join(', ')}`,
    );
  const more = tenants.length - lines.length;
  return [
    `Tenants (${tenants.length}; one client for all, each user's grant reaches its own tenant):`,
    ...lines,
    ...(more > 0 ? [`  ... and ${more} more (--json lists every one)`] : []),
  ];
}
