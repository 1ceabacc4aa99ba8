import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson as sendApiJson } from '../http/responses';
import { BodyTooLargeError, OAUTH_ERROR, OAuthServerError } from './errors';

/** Form posts to the OAuth endpoints are tiny; anything larger is refused rather than buffered. */
const MAX_FORM_BYTES = 64 * 1024;

/** Reads the whole body, refusing more than `limitBytes`. */
export async function readBody(req: IncomingMessage, limitBytes = MAX_FORM_BYTES): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limitBytes) {
      throw new BodyTooLargeError(limitBytes);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads an `application/x-www-form-urlencoded` body; any other media type is an invalid_request. */
export async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const mediaType = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'application/x-www-form-urlencoded') {
    // Drain so the connection can be reused.
    req.resume();
    throw new OAuthServerError(
      OAUTH_ERROR.invalidRequest,
      'The request must be sent as application/x-www-form-urlencoded.',
    );
  }
  return new URLSearchParams(await readBody(req));
}

/**
 * One parameter by name. RFC 6749 3.1 and 3.2: parameters must not repeat, and an empty
 * value counts as absent.
 */
export function singleParam(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) {
    throw new OAuthServerError(OAUTH_ERROR.invalidRequest, `The parameter '${name}' is repeated.`);
  }
  const value = values[0];
  return value === undefined || value === '' ? undefined : value;
}

/** Like {@link singleParam} but a missing value is an invalid_request. */
export function requiredParam(params: URLSearchParams, name: string): string {
  const value = singleParam(params, name);
  if (value === undefined) {
    throw new OAuthServerError(OAUTH_ERROR.invalidRequest, `The parameter '${name}' is missing.`);
  }
  return value;
}

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' } as const;

/** JSON answer that no cache may keep (RFC 6749 5.1: token responses carry secrets). */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendApiJson(res, status, body, { ...NO_STORE, ...headers });
}

/** HTML answer with headers that keep the login page out of frames and caches. */
export function sendHtml(
  res: ServerResponse,
  status: number,
  html: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    ...headers,
    ...NO_STORE,
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
    // No form-action: Chromium applies it to the redirect that follows the form post.
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  });
  res.end(html);
}

/** 302 to a URL the caller has already checked is a registered redirect URI. */
export function sendRedirect(res: ServerResponse, location: string): void {
  res.writeHead(302, { ...NO_STORE, location, 'content-length': 0 });
  res.end();
}
