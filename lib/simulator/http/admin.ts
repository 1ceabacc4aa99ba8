import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../clock';
import { type FaultController, type FaultRule, InvalidFaultRuleError } from '../faults';
import { errorBody, readJsonBody, sendJson } from './responses';

/** Admin paths, served on the same origin (loopback only, like everything here). */
export const ADMIN_PATHS = {
  faults: '/__admin/faults',
  expireTokens: '/__admin/expire-tokens',
} as const;

/**
 * Test-only control surface: POST /__admin/faults (a rule, 201), GET (armed rules),
 * DELETE (clear, 204), POST /__admin/expire-tokens (204). Returns false for other paths.
 */
export async function handleAdmin(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  faults: FaultController,
  clock: Clock,
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
  if (url.pathname.startsWith('/__admin/')) {
    sendJson(res, 404, errorBody(clock, 404, 'Not Found'));
    return true;
  }
  return false;
}
