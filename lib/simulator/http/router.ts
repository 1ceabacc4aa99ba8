import type { IncomingMessage, ServerResponse } from 'node:http';
import { MethodNotAllowedError } from './errors';

/** What a route handler receives. */
export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** Path parameters by name, already percent-decoded. */
  params: Record<string, string>;
  /** The tenant of the bearer token: every id in the path is looked up among that tenant's only. */
  tenantId: string;
}

type RouteHandler = (ctx: RouteContext) => Promise<void> | void;

interface Route {
  method: string;
  segments: string[];
  handler: RouteHandler;
  tag: string;
}

/** A route that matched the path, with the method resolved. */
interface RouteMatch {
  handler: RouteHandler;
  params: Record<string, string>;
  /** Free label of the route (the server uses it for fault matching). */
  tag: string;
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Minimal path router: patterns like `/workspaces/:workspaceId/reports`, exact segment
 * count, literal segments compared as-is. No framework: the service has a dozen routes.
 */
export class Router {
  readonly #routes: Route[] = [];

  add(method: string, pattern: string, tag: string, handler: RouteHandler): this {
    this.#routes.push({ method, segments: pattern.split('/').filter(Boolean), handler, tag });
    return this;
  }

  /** The matching route; undefined when no pattern matches; throws 405 when only the method differs. */
  match(method: string, path: string): RouteMatch | undefined {
    const parts = path.split('/').filter(Boolean);
    const allowed: string[] = [];
    for (const route of this.#routes) {
      const params = matchSegments(route.segments, parts);
      if (!params) continue;
      if (route.method === method) return { handler: route.handler, params, tag: route.tag };
      allowed.push(route.method);
    }
    if (allowed.length > 0) throw new MethodNotAllowedError(allowed);
    return undefined;
  }

  /** The tag of the route the path would reach, whatever the method (for fault matching). */
  tagOf(path: string): string | undefined {
    const parts = path.split('/').filter(Boolean);
    return this.#routes.find((route) => matchSegments(route.segments, parts))?.tag;
  }
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i] as string;
    const v = parts[i] as string;
    if (p.startsWith(':')) params[p.slice(1)] = decode(v);
    else if (p !== v) return undefined;
  }
  return params;
}
