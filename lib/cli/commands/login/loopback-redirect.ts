import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { CLI_ERROR_CODES, CommandError, ConfigError } from '../../../command-line';
import { createSelfSignedCertificate, type SelfSignedOptions } from './self-signed-cert';

/**
 * The loopback redirect of a native app's OAuth login (RFC 8252 7.3): a one-shot server on
 * the registered `http(s)://127.0.0.1:<port>/<path>` that waits for the browser to land
 * with the authorization answer, lets the caller finish the login, and shows the outcome
 * in the browser tab. https gets a self-signed certificate made on the fly.
 */

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The listening address of a redirect URI; a ConfigError naming `where` unless it is loopback http(s). */
export function loopbackAddress(
  redirectUri: string,
  where = '--redirect-uri',
): {
  url: URL;
  host: string;
  port: number;
  tls: boolean;
} {
  let url: URL;
  try {
    url = new URL(redirectUri);
  } catch {
    throw new ConfigError(`${where} must be a URL, got '${redirectUri}'`);
  }
  const tls = url.protocol === 'https:';
  if ((!tls && url.protocol !== 'http:') || !LOOPBACK_HOSTS.has(url.hostname)) {
    throw new ConfigError(
      `${where} must be an http or https loopback URL (127.0.0.1, localhost or [::1]), got '${redirectUri}'`,
    );
  }
  const host = url.hostname === 'localhost' ? '127.0.0.1' : url.hostname.replace(/^\[|\]$/g, '');
  return { url, host, port: url.port === '' ? (tls ? 443 : 80) : Number(url.port), tls };
}

/** What the browser tab shows once the login is finished (or failed). */
interface RedirectOutcome {
  ok: boolean;
  message: string;
}

interface LoopbackRedirect {
  /** The URL the server listens on (the redirect URI's origin). */
  readonly origin: string;
  /**
   * Waits (at most `timeoutMs`) for the browser to land on the redirect path with `state`,
   * `code` or `error`, then runs `finish` on its query; the tab shows success or the error's
   * message. Resolves with `finish`'s result; rejects with its error or a timeout.
   */
  next<T>(finish: (params: URLSearchParams) => Promise<T>, timeoutMs: number): Promise<T>;
  close(): Promise<void>;
}

export interface LoopbackOptions {
  /** How the https certificate is made (tests). */
  certificate?: SelfSignedOptions;
}

/** Starts listening on the redirect URI's loopback address; fails at once when the port is taken. */
export async function openLoopbackRedirect(
  redirectUri: string,
  options: LoopbackOptions = {},
): Promise<LoopbackRedirect> {
  const address = loopbackAddress(redirectUri);
  const path = address.url.pathname || '/';
  let onLanding: ((params: URLSearchParams, res: http.ServerResponse) => void) | undefined;
  const handler: http.RequestListener = (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const p = url.searchParams;
    // Only the authorization answer counts (a favicon or a stray request does not).
    if (
      req.method !== 'GET' ||
      url.pathname !== path ||
      !(p.has('state') || p.has('code') || p.has('error'))
    ) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found\n');
      return;
    }
    if (onLanding === undefined) {
      page(res, 409, { ok: false, message: 'This login is already finished or not started.' });
      return;
    }
    const landing = onLanding;
    onLanding = undefined;
    landing(p, res);
  };
  const server = address.tls
    ? https.createServer(await createSelfSignedCertificate(address.host, options.certificate), handler)
    : http.createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (cause: NodeJS.ErrnoException) =>
      reject(
        new CommandError(
          CLI_ERROR_CODES.loopback,
          `cannot listen on ${address.url.origin} for the login redirect (${cause.code ?? cause.message}); free the port or register and pass another --redirect-uri`,
          { cause },
        ),
      ),
    );
    server.listen(address.port, address.host, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return {
    origin: `${address.url.protocol}//${address.url.hostname}:${port}`,
    next<T>(finish: (params: URLSearchParams) => Promise<T>, timeoutMs: number): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
          onLanding = undefined;
          reject(
            new CommandError(
              CLI_ERROR_CODES.loginTimeout,
              `no sign-in reached ${address.url.href} within ${Math.round(timeoutMs / 1000)} s (--timeout); run login again`,
            ),
          );
        }, timeoutMs);
        onLanding = (params, res) => {
          clearTimeout(timer);
          finish(params).then(
            (value) => {
              page(res, 200, { ok: true, message: 'You are signed in. You can close this tab.' });
              resolve(value);
            },
            (error: unknown) => {
              page(res, 400, { ok: false, message: error instanceof Error ? error.message : String(error) });
              reject(error);
            },
          );
        };
      });
    },
    close,
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

function page(res: http.ServerResponse, status: number, outcome: RedirectOutcome): void {
  const title = outcome.ok ? 'Signed in' : 'Sign-in failed';
  res
    .writeHead(status, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': "default-src 'none'",
      // The page must not leak the code in its URL to another site.
      'referrer-policy': 'no-referrer',
    })
    .end(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>report-export: ${title}</title></head>` +
        `<body><h1 id="outcome">${title}</h1><p id="message">${escapeHtml(outcome.message)}</p>` +
        '<p>Return to the terminal.</p></body></html>\n',
    );
}
