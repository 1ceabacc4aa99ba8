import { API_ERROR_CODES, refreshTokens } from '../../api';
import type { LeaseStore } from '../../stores';
import { SecretTokenSource, TOKEN_REFRESH_LEASE } from '../../workflow';
import type { SecretLocation } from '../shared/config';
import { type AwsClients, openSecretStore } from './secret-access';

/**
 * A stored login's token source, refreshed as the deployment's runs refresh it: under the
 * secret's token-refresh lease (`leaseKey`: a tenant's `tenant=<t>/token-refresh`, else the
 * one secret's), the rotated refresh token stored before anything uses the new access token.
 * `force`: the stored access token counts as expired, so `getAccessToken` refreshes even
 * while it is valid (a check that the login still refreshes; nothing is used up).
 */
export function storedLoginTokens(options: {
  location: SecretLocation;
  leases: LeaseStore;
  leaseKey?: string;
  clients?: AwsClients;
  force?: boolean;
}): SecretTokenSource {
  const clients = options.clients ?? {};
  const { store, name } = openSecretStore(options.location, clients);
  const transport = clients.fetch === undefined ? {} : { fetch: clients.fetch };
  return new SecretTokenSource({
    secrets: store,
    secretName: name,
    leases: options.leases,
    leaseKey: options.leaseKey ?? TOKEN_REFRESH_LEASE,
    expirySkewMs: options.force === true ? Number.POSITIVE_INFINITY : 0,
    refresh: (client, refreshToken, signal) =>
      refreshTokens(client, refreshToken, { transport, ...(signal ? { signal } : {}) }),
  });
}

/** A loopback address: a login of the local service, which lives only while `npm start` runs. */
export function isLoopbackUrl(url: string): boolean {
  if (!URL.canParse(url)) return false;
  return ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(url).hostname);
}

/** The error and its causes, outermost first, at most `depth` of them (a cause chain is not trusted to end). */
function* causeChain(error: unknown, depth = 6): Generator<{ code?: unknown; cause?: unknown }> {
  let e = error as { code?: unknown; cause?: unknown } | null | undefined;
  for (let i = 0; i < depth && typeof e === 'object' && e !== null; i++, e = e.cause as typeof e) yield e;
}

/** No server answered the refresh (a connection refused, reset, or never made), anywhere in the cause chain. */
export function noServerAnswered(error: unknown): boolean {
  return [...causeChain(error)].some(
    (e) => e.code === API_ERROR_CODES.connection || e.code === 'ECONNREFUSED' || e.code === 'ECONNRESET',
  );
}
