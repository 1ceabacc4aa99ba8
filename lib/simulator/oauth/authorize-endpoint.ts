import type { IncomingMessage, ServerResponse } from 'node:http';
import { type AuthorizeRequest, redirectWith, validateAuthorizeRequest } from './authorize-request';
import type { AuthorizationCodeStore } from './code-store';
import {
  AuthorizeRedirectError,
  OAUTH_ERROR,
  type OAuthErrorCode,
  OAuthServerError,
  UntrustedRedirectError,
} from './errors';
import { readForm, sendHtml, sendRedirect, singleParam } from './http-io';
import { LOGIN_FORM, renderErrorPage, renderLoginPage } from './login-page';
import type { LoginThrottle } from './login-throttle';
import { secretsEqual } from './opaque-tokens';
import type { LoginTransactionStore } from './transaction-store';
import type { RegisteredClient, SeededUser } from './types';

/** Failed logins allowed per authorization request before it is answered with access_denied. */
const MAX_FAILED_LOGINS = 5;

/** What the authorization endpoint works with. */
interface AuthorizeEndpointContext {
  clients: readonly RegisteredClient[];
  users: readonly SeededUser[];
  /** The same users by username. */
  usersByName: ReadonlyMap<string, SeededUser>;
  codes: AuthorizationCodeStore;
  transactions: LoginTransactionStore;
  throttle: LoginThrottle;
  autoApprove: boolean;
}

/**
 * /connect/authorize: GET (or a POST of the same parameters, RFC 6749 3.1) starts an
 * authorization; a POST carrying a login transaction is the login page's answer.
 */
export async function handleAuthorizeRequest(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  context: AuthorizeEndpointContext,
): Promise<void> {
  if (req.method === 'GET' || req.method === 'HEAD') {
    startAuthorization(res, url.searchParams, context);
    return;
  }
  if (req.method !== 'POST') {
    req.resume();
    res.writeHead(405, { allow: 'GET, POST', 'content-length': 0 });
    res.end();
    return;
  }
  let form: URLSearchParams;
  try {
    form = await readForm(req);
  } catch (error) {
    if (error instanceof OAuthServerError) {
      sendHtml(res, error.status, renderErrorPage({ code: error.error, description: error.description }));
      return;
    }
    throw error;
  }
  if (form.has(LOGIN_FORM.transaction)) {
    completeLogin(res, form, context);
  } else {
    startAuthorization(res, form, context);
  }
}

function startAuthorization(
  res: ServerResponse,
  params: URLSearchParams,
  context: AuthorizeEndpointContext,
): void {
  let request: AuthorizeRequest;
  try {
    request = validateAuthorizeRequest(params, context.clients);
  } catch (error) {
    answerAuthorizeError(res, error);
    return;
  }
  if (context.autoApprove) {
    // The hint picks the user (so the tenant); without one, the first user, as before tenants.
    const user =
      request.loginHint === undefined ? context.users[0] : context.usersByName.get(request.loginHint);
    if (user === undefined) {
      redirectWithError(
        res,
        request,
        OAUTH_ERROR.accessDenied,
        'The login_hint names no user of this service.',
      );
    } else {
      redirectWithCode(res, request, user, context);
    }
    return;
  }
  const transaction = context.transactions.create(request);
  const hint = request.loginHint === undefined ? {} : { username: request.loginHint };
  sendHtml(res, 200, renderLoginPage({ transactionId: transaction.id, request, ...hint }));
}

function completeLogin(res: ServerResponse, form: URLSearchParams, context: AuthorizeEndpointContext): void {
  let transactionId: string | undefined;
  let decision: string | undefined;
  let username: string;
  let password: string;
  try {
    transactionId = singleParam(form, LOGIN_FORM.transaction);
    decision = singleParam(form, LOGIN_FORM.decision);
    username = singleParam(form, LOGIN_FORM.username) ?? '';
    password = singleParam(form, LOGIN_FORM.password) ?? '';
  } catch (error) {
    answerAuthorizeError(res, error);
    return;
  }
  const transaction = transactionId === undefined ? undefined : context.transactions.get(transactionId);
  if (transaction === undefined) {
    // Unknown or expired: the redirect URI is not known any more, so no redirect.
    sendHtml(
      res,
      400,
      renderErrorPage({
        code: OAUTH_ERROR.invalidRequest,
        description: 'The sign-in session is unknown or has expired.',
      }),
    );
    return;
  }
  const { request } = transaction;
  if (decision === LOGIN_FORM.deny) {
    context.transactions.end(transaction.id);
    redirectWithError(res, request, OAUTH_ERROR.accessDenied, 'The user denied the authorization request.');
    return;
  }
  // A form submitted with Enter, or by a script, may carry no decision: that is a sign-in.
  if (decision !== undefined && decision !== LOGIN_FORM.approve) {
    context.transactions.end(transaction.id);
    redirectWithError(res, request, OAUTH_ERROR.invalidRequest, `Unknown decision '${decision}'.`);
    return;
  }
  // Checked before the password: once throttled, even the right password is refused.
  const retryAfter = context.throttle.retryAfterSeconds(username, request.clientId);
  if (retryAfter > 0) {
    sendHtml(
      res,
      429,
      renderLoginPage({
        transactionId: transaction.id,
        request,
        error: `Too many failed sign-in attempts. Try again in ${Math.ceil(retryAfter / 60)} minute(s).`,
        username,
      }),
      { 'retry-after': String(retryAfter) },
    );
    return;
  }
  const user = findUser(context.usersByName, username, password);
  if (user === undefined) {
    context.throttle.recordFailure(username, request.clientId);
    transaction.failedLogins += 1;
    if (transaction.failedLogins >= MAX_FAILED_LOGINS) {
      context.transactions.end(transaction.id);
      redirectWithError(res, request, OAUTH_ERROR.accessDenied, 'Too many failed sign-in attempts.');
      return;
    }
    sendHtml(
      res,
      200,
      renderLoginPage({
        transactionId: transaction.id,
        request,
        error: 'The username or password is not correct.',
        username,
      }),
    );
    return;
  }
  context.throttle.recordSuccess(username);
  context.transactions.end(transaction.id);
  redirectWithCode(res, request, user, context);
}

function findUser(
  users: ReadonlyMap<string, SeededUser>,
  username: string,
  password: string,
): SeededUser | undefined {
  const user = users.get(username);
  // Compare a password even for an unknown user, so timing does not reveal usernames.
  const matches = secretsEqual(password, user?.password ?? '\u0000unknown-user');
  return user !== undefined && matches ? user : undefined;
}

function redirectWithCode(
  res: ServerResponse,
  request: AuthorizeRequest,
  user: SeededUser,
  context: AuthorizeEndpointContext,
): void {
  const code = context.codes.issue({
    clientId: request.clientId,
    redirectUri: request.redirectUri,
    subject: user.subject,
    tenantId: user.tenantId,
    scope: request.scope,
    codeChallenge: request.codeChallenge,
  });
  sendRedirect(res, redirectWith(request.redirectUri, { code, state: request.state }));
}

function redirectWithError(
  res: ServerResponse,
  target: { redirectUri: string; state: string | undefined },
  code: OAuthErrorCode,
  description: string,
): void {
  sendRedirect(
    res,
    redirectWith(target.redirectUri, { error: code, error_description: description, state: target.state }),
  );
}

function answerAuthorizeError(res: ServerResponse, error: unknown): void {
  if (error instanceof AuthorizeRedirectError) {
    redirectWithError(res, error, error.error, error.description);
    return;
  }
  if (error instanceof UntrustedRedirectError || error instanceof OAuthServerError) {
    sendHtml(res, 400, renderErrorPage({ code: error.error, description: error.description }));
    return;
  }
  throw error;
}
