import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OAuthErrorBody, TokenResponse } from '../../spec';
import type { AccessTokenIssuer } from './access-tokens';
import { OFFLINE_ACCESS_SCOPE } from './authorize-request';
import { authenticateClient } from './client-auth';
import type { AuthorizationCodeStore } from './code-store';
import { InvalidClientError, OAUTH_ERROR, OAuthServerError } from './errors';
import { readForm, requiredParam, sendJson, singleParam } from './http-io';
import { verifyPkce } from './pkce';
import type { RefreshGrant, RefreshTokenStore } from './refresh-store';
import type { RegisteredClient } from './types';

/** What the token endpoint works with. */
interface TokenEndpointContext {
  clients: readonly RegisteredClient[];
  codes: AuthorizationCodeStore;
  refreshTokens: RefreshTokenStore;
  accessTokens: AccessTokenIssuer;
}

const GRANT_TYPE = { authorizationCode: 'authorization_code', refreshToken: 'refresh_token' } as const;

/** POST /connect/token: RFC 6749 4.1.3 and 6, errors per 5.2. */
export async function handleTokenRequest(
  req: IncomingMessage,
  res: ServerResponse,
  context: TokenEndpointContext,
): Promise<void> {
  try {
    if (req.method !== 'POST') {
      req.resume();
      sendError(res, new OAuthServerError(OAUTH_ERROR.invalidRequest, 'Use POST.', { status: 405 }), {
        allow: 'POST',
      });
      return;
    }
    const form = await readForm(req);
    const client = authenticateClient(req.headers.authorization, form, context.clients);
    const grantType = requiredParam(form, 'grant_type');
    let body: TokenResponse;
    if (grantType === GRANT_TYPE.authorizationCode) {
      body = await exchangeCode(form, client, context);
    } else if (grantType === GRANT_TYPE.refreshToken) {
      body = await refresh(form, client, context);
    } else {
      throw new OAuthServerError(
        OAUTH_ERROR.unsupportedGrantType,
        'Supported grant types: authorization_code, refresh_token.',
      );
    }
    sendJson(res, 200, body);
  } catch (error) {
    if (!(error instanceof OAuthServerError)) {
      throw error;
    }
    // RFC 6749 5.2: a 401 for a failed client authentication names the scheme to use.
    sendError(
      res,
      error,
      error instanceof InvalidClientError ? { 'www-authenticate': 'Basic realm="connect"' } : {},
    );
  }
}

async function exchangeCode(
  form: URLSearchParams,
  client: RegisteredClient,
  context: TokenEndpointContext,
): Promise<TokenResponse> {
  const code = requiredParam(form, 'code');
  const redirectUri = requiredParam(form, 'redirect_uri');
  const verifier = singleParam(form, 'code_verifier');
  const redemption = context.codes.redeem(code);
  if (redemption.kind === 'unknown') {
    throw invalidGrant('The authorization code is invalid or expired.');
  }
  if (redemption.kind === 'reused') {
    // RFC 6749 4.1.2: a replayed code may be stolen; what it bought is withdrawn.
    for (const familyId of redemption.refreshFamilyIds) {
      context.refreshTokens.revokeFamily(familyId);
    }
    throw invalidGrant('The authorization code has already been used.');
  }
  const { grant } = redemption;
  if (grant.clientId !== client.clientId) {
    throw invalidGrant('The authorization code was issued to another client.');
  }
  if (grant.redirectUri !== redirectUri) {
    throw invalidGrant('The redirect_uri does not match the authorization request.');
  }
  if (grant.codeChallenge === undefined) {
    if (verifier !== undefined) {
      throw invalidGrant('code_verifier was sent but the authorization request had no code_challenge.');
    }
  } else if (verifier === undefined || !verifyPkce(grant.codeChallenge, verifier)) {
    throw invalidGrant('The code_verifier does not match the code_challenge.');
  }

  const refreshGrant: RefreshGrant = {
    clientId: grant.clientId,
    subject: grant.subject,
    tenantId: grant.tenantId,
    scope: grant.scope,
  };
  let refreshToken: string | undefined;
  if (hasScope(grant.scope, OFFLINE_ACCESS_SCOPE)) {
    const issued = context.refreshTokens.issue(refreshGrant);
    context.codes.linkRefreshFamily(code, issued.familyId);
    refreshToken = issued.token;
  }
  return tokenResponse(context, refreshGrant, refreshToken);
}

async function refresh(
  form: URLSearchParams,
  client: RegisteredClient,
  context: TokenEndpointContext,
): Promise<TokenResponse> {
  const presented = requiredParam(form, 'refresh_token');
  const requestedScope = singleParam(form, 'scope');
  // RFC 6749 6: a narrower scope may be asked for, never a wider one. Checked before use so
  // that a refused request does not rotate the token.
  const original = context.refreshTokens.peek(presented);
  let scope: string | undefined;
  if (original !== undefined && requestedScope !== undefined) {
    const requested = [...new Set(requestedScope.split(' ').filter((s) => s !== ''))];
    if (requested.some((s) => !hasScope(original.scope, s))) {
      throw new OAuthServerError(OAUTH_ERROR.invalidScope, 'The scope exceeds the scope originally granted.');
    }
    // A blank scope asks for nothing in particular: the original grant, never an empty one.
    scope = requested.length === 0 ? undefined : requested.join(' ');
  }
  const use = context.refreshTokens.use(presented, client.clientId);
  if (use.kind === 'rejected') {
    // One description for every reason: the client cannot act differently on any of them.
    throw invalidGrant('The refresh token is invalid, expired or revoked.');
  }
  return tokenResponse(context, { ...use.grant, scope: scope ?? use.grant.scope }, use.token);
}

async function tokenResponse(
  context: TokenEndpointContext,
  grant: RefreshGrant,
  refreshToken: string | undefined,
): Promise<TokenResponse> {
  const accessToken = await context.accessTokens.issue({
    subject: grant.subject,
    clientId: grant.clientId,
    tenantId: grant.tenantId,
    scope: grant.scope,
  });
  const ttl = context.accessTokens.ttlSeconds;
  return {
    access_token: accessToken,
    token_type: 'bearer',
    // The spec shows `expires`; standard clients read `expires_in`.
    expires: ttl,
    expires_in: ttl,
    scope: grant.scope,
    ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }),
  };
}

function hasScope(scope: string, wanted: string): boolean {
  return scope.split(' ').includes(wanted);
}

function invalidGrant(description: string): OAuthServerError {
  return new OAuthServerError(OAUTH_ERROR.invalidGrant, description);
}

function sendError(res: ServerResponse, error: OAuthServerError, headers: Record<string, string>): void {
  const body: OAuthErrorBody = { error: error.error, error_description: error.description };
  sendJson(res, error.status, body, headers);
}
