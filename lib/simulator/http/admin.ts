import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../clock';
import { type FaultController, type FaultRule, InvalidFaultRuleError } from '../faults';
import { errorBody, readJsonBody, sendJson } from './responses';

/** Admin paths, served on the same origin (loopback only, like everything here). */
export const ADMIN_PATHS = {
  faults: '/__admin/faults',
  expireTokens: '/__admin/expire-tokens',
  /** `/__admin/tenants/<tenantId>/revoke-grants` */
  revokeTenantGrants: /^\/__admin\/tenants\/([^/]+)\/revoke-grants$/,
} as const;

/** The admin operations beyond faults. */
export interface AdminActions {
  /** Revokes every grant of the tenant; false when the service hosts no such tenant. */
  revokeTenantGrants(tenantId: string): boolean;
}

/**
 * Test-only control surface: POST /__admin/faults (a rule, 201), GET (armed rules),
 * DELETE (clear, 204), POST /__admin/expire-tokens (204), POST
 * /__admin/tenants/<tenantId>/revoke-grants (204; 404 for a tenant not hosted). Returns
 * false for other paths.
 */
export async function handleAdmin(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  faults: FaultController,
  clock: Clock,
  actions: AdminActions,
): Promise<boolean> {
  if (url.pathname === ADMIN_PATHS.faults) {
    if (req.method === 'POST') {
      try {
        const rule = (await readJsonBody(req)) as FaultRule;
        faults.inject(rule);
        sendJson(res, 201, { rule });
      } catch (error) {
        const message =
          error instanceof InvalidFaultRuleError ? error.message : 'The fault rule is not valid JSON.';
        sendJson(res, 400, errorBody(clock, 400, message));
      }
      return true;
    }
    if (req.method === 'DELETE') {
      faults.clear();
      res.writeHead(204).end();
      return true;
    }
    if (req.method === 'GET') {
      sendJson(res, 200, { faults: faults.pending() });
      return true;
    }
  }
  if (url.pathname === ADMIN_PATHS.expireTokens && req.method === 'POST') {
    faults.expireAccessTokens();
    res.writeHead(204).end();
    return true;
  }
  const revoke = ADMIN_PATHS.revokeTenantGrants.exec(url.pathname);
  if (revoke && req.method === 'POST') {
    if (actions.revokeTenantGrants((revoke[1] as string).toLowerCase())) {
      res.writeHead(204).end();
    } else {
      sendJson(res, 404, errorBody(clock, 404, 'Not Found'));
    }
    return true;
  }
  if (url.pathname.startsWith('/__admin/')) {
    sendJson(res, 404, errorBody(clock, 404, 'Not Found'));
    return true;
  }
  return false;
}
