import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from './clock';
import type { FaultController, FaultRoute } from './faults';
import { type AdminActions, handleAdmin } from './http/admin';
import { ApiProblem, MethodNotAllowedError, NotFoundError } from './http/errors';
import { errorBody, sendInsufficientScope, sendJson, sendUnauthorized } from './http/responses';
import type { Router } from './http/router';
import type { OAuthServer } from './oauth';

/** Path under which the API lives: `{base_url}` = origin + API_PREFIX. */
export const API_PREFIX = '/api';
const TOKEN_PATH = '/connect/token';
/** The scope every API call needs (the spec's authorization request asks for it). */
const API_SCOPE = 'onboarding';

interface ServiceParts {
  clock: Clock;
  faults: FaultController;
  router: Router;
  oauth: () => OAuthServer;
  origin: () => string;
  admin: AdminActions;
}

function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return m?.[1];
}

/** Answers a `status` fault: the injected status, Retry-After when set, a body in the route's style. */
function sendInjectedStatus(
  res: ServerResponse,
  clock: Clock,
  route: string,
  status: number,
  retryAfterSeconds: number | undefined,
): void {
  const headers: Record<string, string> =
    retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) };
  const body =
    route === 'token'
      ? { error: 'temporarily_unavailable', error_description: 'Injected fault.' }
      : errorBody(clock, status, 'Injected fault.');
  sendJson(res, status, body, headers);
}

function sendProblem(res: ServerResponse, clock: Clock, error: unknown): void {
  if (res.headersSent) {
    // Mid-body: the only honest signal left is to drop the connection.
    res.destroy();
    return;
  }
  if (error instanceof ApiProblem) {
    const headers: Record<string, string> =
      error instanceof MethodNotAllowedError ? { allow: error.allow.join(', ') } : {};
    sendJson(res, error.status, errorBody(clock, error.status, error.message), headers);
    return;
  }
  // 5xx details stay inside the service.
  sendJson(res, 500, errorBody(clock, 500, 'Internal Server Error'));
}

/**
 * The request handler of the whole service: admin, then faults, then OAuth, then the
 * bearer-checked API under {@link API_PREFIX}.
 */
export function createRequestHandler(
  parts: ServiceParts,
): (req: IncomingMessage, res: ServerResponse) => void {
  const { clock, faults, router } = parts;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', parts.origin());
    if (await handleAdmin(req, res, url, faults, clock, parts.admin)) return;

    const apiPath = url.pathname.startsWith(`${API_PREFIX}/`)
      ? url.pathname.slice(API_PREFIX.length)
      : undefined;
    const route = url.pathname === TOKEN_PATH ? 'token' : apiPath ? router.tagOf(apiPath) : undefined;
    if (route) {
      const key = route as Exclude<FaultRoute, '*'>;
      const delay = faults.take(key, ['latency']);
      if (delay) await sleep(delay.ms);
      const injected = faults.take(key, ['status']);
      if (injected) {
        sendInjectedStatus(res, clock, route, injected.status, injected.retryAfterSeconds);
        return;
      }
    }

    if (await parts.oauth().handle(req, res, url)) return;

    if (apiPath === undefined) throw new NotFoundError();
    const token = bearerToken(req);
    const claims = token ? await parts.oauth().verifyAccessToken(token) : null;
    if (!claims) {
      sendUnauthorized(res);
      return;
    }
    // A valid token is not enough: it must have been granted the API's scope (RFC 6750 3.1).
    if (!claims.scope.split(' ').includes(API_SCOPE)) {
      req.resume();
      sendInsufficientScope(res, clock, API_SCOPE);
      return;
    }
    const match = router.match(req.method ?? 'GET', apiPath);
    if (!match) throw new NotFoundError();
    await match.handler({ req, res, url, params: match.params, tenantId: claims.tenantId });
  }

  return (req, res) => {
    handle(req, res).catch((error: unknown) => sendProblem(res, clock, error));
  };
}
