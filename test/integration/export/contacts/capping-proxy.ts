import { type LoopbackServer, startLoopbackServer } from '../../api/loopback-server';
import type { RunningSimulator } from '../../api/sim-fixture';

/** The proxy, and how many item searches went through it. */
export interface CappingProxy {
  server: LoopbackServer;
  searches: () => number;
}

/** The cap the proxy puts on every item search answer, as a capping service would. */
export const CAP = 100;
const ITEMS_PATH = /^\/api\/v1\.0\/contactdirectories\/[^/]+\/items(\?|$)/;

/** What the proxy does to the item search answers, by their order (1 = the first). */
export interface ProxyPlan {
  cap: boolean;
  /** Answer number at which the service fails (503 from now on, through sim.faults). */
  failAt?: number;
  /** Answer number whose body is cut short. */
  truncateAt?: number;
}

/**
 * A proxy on 127.0.0.1 in front of the local service: every request goes through as it is,
 * and the item search answers are cut to CAP items when `plan.cap` (the directory read must
 * then split its search), or cut short, or made to fail, as `plan` says.
 */
export async function startCappingProxy(
  sim: RunningSimulator,
  plan: { current: ProxyPlan },
): Promise<CappingProxy> {
  const origin = new URL(sim.baseUrl).origin;
  let searches = 0;
  const server = await startLoopbackServer(async (req, res, body) => {
    const isSearch = req.method === 'GET' && ITEMS_PATH.test(req.url ?? '');
    if (isSearch) {
      searches++;
      if (searches === plan.current.failAt)
        sim.faults.inject({ route: 'items', kind: 'status', status: 503, times: 1000 });
    }
    const headers: Record<string, string> = {};
    for (const name of ['authorization', 'content-type', 'accept']) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const upstream = await fetch(`${origin}${req.url}`, {
      method: req.method ?? 'GET',
      headers,
      ...(body === '' ? {} : { body }),
    });
    let text = await upstream.text();
    if (isSearch && upstream.status === 200 && plan.current.cap) {
      const envelope = JSON.parse(text) as { data: unknown[]; page_size: number };
      if (envelope.data.length > CAP) {
        envelope.data = envelope.data.slice(0, CAP);
        envelope.page_size = CAP;
      }
      text = JSON.stringify(envelope);
    }
    const bytes = Buffer.from(text, 'utf8');
    const type = upstream.headers.get('content-type') ?? 'application/json';
    if (isSearch && searches === plan.current.truncateAt) {
      res.writeHead(upstream.status, { 'content-type': type, 'content-length': bytes.length });
      res.write(bytes.subarray(0, Math.floor(bytes.length / 2)));
      res.destroy();
      return;
    }
    res.writeHead(upstream.status, { 'content-type': type, 'content-length': bytes.length });
    res.end(bytes);
  });
  return { server, searches: () => searches };
}
