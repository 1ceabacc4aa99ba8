import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { brotliCompressSync, createGzip, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AbortedError,
  API_ERROR_CODES,
  ConnectionError,
  HttpTransport,
  type OAuthClientConfig,
  refreshTokens,
  TimeoutError,
  UnsupportedContentEncodingError,
} from '../../../lib/api';
import { nodeHttpFetch } from '../../../lib/api/http/node-fetch';
import { isUnsentConnectionError } from '../../../lib/api/http/retry';
import { createSelfSignedCertificate } from '../../../lib/cli/commands/login/self-signed-cert';
import { writeUntilGone } from './loopback-server';

const MiB = 1024 * 1024;

/** One request as the server saw it. */
interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A server on 127.0.0.1 that counts connections and records requests (body read first). */
interface TestServer {
  url: string;
  server: Server;
  seen: Seen[];
  connections: number;
  /** Resolves when a socket of this server closes. */
  socketClosed(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void | Promise<void>;

/** Shows a name for `Promise.race` against a pending promise. */
const STILL_PENDING = Symbol('pending');
const pending = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, sleep(ms).then(() => STILL_PENDING as typeof STILL_PENDING)]);

describe('nodeHttpFetch, the transport’s default fetch, over real HTTP', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  async function serve(handler: Handler, server: Server = createServer()): Promise<TestServer> {
    const seen: Seen[] = [];
    const closes: (() => void)[] = [];
    const state = { connections: 0 };
    server.on('connection', (socket: Socket) => {
      state.connections++;
      socket.on('close', () => {
        for (const done of closes.splice(0)) done();
      });
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        Promise.resolve(handler(req, res, body)).catch(() => res.destroy());
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    const { port } = server.address() as AddressInfo;
    const scheme = 'setSecureContext' in server ? 'https' : 'http';
    return {
      url: `${scheme}://127.0.0.1:${port}`,
      server,
      seen,
      get connections() {
        return state.connections;
      },
      socketClosed: () => new Promise<void>((resolve) => closes.push(resolve)),
    };
  }

  const json = (res: ServerResponse, value: unknown, headers: Record<string, string> = {}): void => {
    res.writeHead(200, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(value));
  };

  const transportFor = (url: string, options: Partial<ConstructorParameters<typeof HttpTransport>[0]> = {}) =>
    new HttpTransport({ baseUrl: url, maxRetries: 0, sleep: async () => undefined, ...options });

  describe('requests', () => {
    it('sends a JSON body with its byte length, not chunked, and asks for gzip, deflate and br', async () => {
      // Prepare
      const server = await serve((_req, res) => json(res, { ok: true }));
      const transport = transportFor(server.url, { auth: { getAccessToken: async () => 'tok-1' } });
      const payload = { name: 'Zoë – ünïcode', n: 1 };
      // Act
      const { body } = await transport.requestJson({ method: 'POST', path: '/v1.0/runs', json: payload });
      // Assess
      expect(body).toEqual({ ok: true });
      const [req] = server.seen;
      expect(req?.method).toBe('POST');
      expect(JSON.parse(req?.body ?? '')).toEqual(payload);
      expect(req?.headers['content-length']).toBe(String(Buffer.byteLength(JSON.stringify(payload))));
      expect(req?.headers['transfer-encoding']).toBeUndefined();
      expect(req?.headers['content-type']).toBe('application/json');
      expect(req?.headers.authorization).toBe('Bearer tok-1');
      expect(req?.headers['accept-encoding']).toBe('gzip, deflate, br');
      expect(req?.headers['user-agent']).toMatch(/^report-export-client\//);
    });

    it('sends a refresh as a form body to the token endpoint', async () => {
      // Prepare
      const server = await serve((_req, res) =>
        json(res, { access_token: 'a', refresh_token: 'r2', expires_in: 60, token_type: 'Bearer' }),
      );
      const config: OAuthClientConfig = {
        authUrl: server.url,
        clientId: 'client-1',
        clientSecret: 's3cret',
        redirectUri: 'http://127.0.0.1:8000/',
      };
      // Act
      const tokens = await refreshTokens(config, 'r1', { transport: { maxRetries: 0 } });
      // Assess
      expect(tokens).toMatchObject({ accessToken: 'a', refreshToken: 'r2' });
      const [req] = server.seen;
      expect(req?.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(req?.headers['content-length']).toBe(String(Buffer.byteLength(req?.body ?? '')));
      expect(new URLSearchParams(req?.body).get('grant_type')).toBe('refresh_token');
      expect(new URLSearchParams(req?.body).get('refresh_token')).toBe('r1');
    });

    it('sends a POST without a body with content-length 0, like fetch, and GET with neither', async () => {
      // Prepare
      const server = await serve((_req, res) => {
        res.end();
      });
      // Act
      await (await nodeHttpFetch(`${server.url}/a`, { method: 'POST' })).text();
      await (await nodeHttpFetch(`${server.url}/b`)).text();
      // Assess
      expect(server.seen[0]?.headers['content-length']).toBe('0');
      expect(server.seen[0]?.headers['transfer-encoding']).toBeUndefined();
      expect(server.seen[1]?.headers['content-length']).toBeUndefined();
      expect(server.seen[1]?.headers['transfer-encoding']).toBeUndefined();
    });

    it('rejects with a TypeError, making no request, for a bad URL or header or a GET with a body', async () => {
      // Prepare
      const server = await serve((_req, res) => {
        res.end();
      });
      // Act
      const errors = await Promise.all([
        nodeHttpFetch('not a url').catch((e: unknown) => e),
        nodeHttpFetch('ftp://127.0.0.1/').catch((e: unknown) => e),
        nodeHttpFetch(server.url, { headers: { 'x-bad': 'a\nb' } }).catch((e: unknown) => e),
        nodeHttpFetch(server.url, { method: 'GET', body: '{}' }).catch((e: unknown) => e),
      ]);
      // Assess
      for (const error of errors) expect(error).toBeInstanceOf(TypeError);
      expect(server.connections).toBe(0);
    });
  });

  describe('responses', () => {
    it('keeps repeated headers: every set-cookie apart, others joined, content-length as sent', async () => {
      // Prepare
      const server = await serve((_req, res) => {
        res.setHeader('set-cookie', ['a=1; Path=/', 'b=2; HttpOnly']);
        res.setHeader('x-multi', ['one', 'two']);
        res.setHeader('content-length', '2');
        res.end('{}');
      });
      // Act
      const response = await nodeHttpFetch(server.url);
      const text = await response.text();
      // Assess
      expect(text).toBe('{}');
      expect(response.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; HttpOnly']);
      expect(response.headers.get('x-multi')).toBe('one, two');
      expect(response.headers.get('content-length')).toBe('2');
      expect(response.status).toBe(200);
      expect(response.redirected).toBe(false);
    });

    it('hands a 204 and a 304 out without a body', async () => {
      // Prepare
      const server = await serve((req, res) => {
        res.writeHead(req.url === '/a' ? 204 : 304);
        res.end();
      });
      // Act
      const responses = [await nodeHttpFetch(`${server.url}/a`), await nodeHttpFetch(`${server.url}/b`)];
      // Assess
      expect(responses.map((r) => [r.status, r.body])).toEqual([
        [204, null],
        [304, null],
      ]);
    });

    const value = { data: Array.from({ length: 5_000 }, (_, i) => ({ i, s: `row ${i}` })) };
    const text = JSON.stringify(value);
    it.each([
      { name: 'gzip', coding: 'gzip', encode: (b: string) => gzipSync(b) },
      { name: 'gzip', coding: 'x-gzip', encode: (b: string) => gzipSync(b) },
      { name: 'zlib', coding: 'deflate', encode: (b: string) => deflateSync(b) },
      { name: 'raw deflate', coding: 'deflate', encode: (b: string) => deflateRawSync(b) },
      { name: 'brotli', coding: 'br', encode: (b: string) => brotliCompressSync(b) },
      { name: 'any case', coding: 'GZip', encode: (b: string) => gzipSync(b) },
      { name: 'undone last first', coding: 'deflate, gzip', encode: (b: string) => gzipSync(deflateSync(b)) },
      {
        name: 'undone last first',
        coding: 'gzip,br',
        encode: (b: string) => brotliCompressSync(gzipSync(b)),
      },
      { name: 'none', coding: 'identity', encode: (b: string) => Buffer.from(b) },
    ])('decodes content-encoding $coding ($name)', async ({ coding, encode }) => {
      // Prepare
      const encoded = encode(text);
      const server = await serve((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': coding });
        res.end(encoded);
      });
      // Act
      const { body, headers } = await transportFor(server.url).requestJson({ method: 'GET', path: '/x' });
      // Assess
      expect(body).toEqual(value);
      expect(headers.get('content-encoding')).toBe(coding);
    });

    it('hands a body with a coding it does not know on as it came, like fetch', async () => {
      // Prepare
      const server = await serve((_req, res) => {
        res.writeHead(200, { 'content-encoding': 'zstd, gzip' });
        res.end(gzipSync('{}'));
      });
      // Act
      const response = await nodeHttpFetch(server.url);
      const bytes = Buffer.from(await response.arrayBuffer());
      // Assess
      expect(bytes).toEqual(gzipSync('{}'));
    });

    it.each([
      { coding: 'zstd', call: 'requestJson' as const },
      { coding: 'zstd', call: 'requestStream' as const },
      { coding: 'gzip, compress', call: 'requestJson' as const },
    ])(
      'fails $call with UnsupportedContentEncodingError naming $coding, not a JSON error',
      async ({ coding, call }) => {
        // Prepare
        let requests = 0;
        const server = await serve((_req, res) => {
          requests++;
          res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': coding });
          res.end(Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0]));
        });
        // Act
        const error = await transportFor(server.url, { maxRetries: 2 })
          [call]({ method: 'GET', path: '/x' })
          .catch((e: unknown) => e);
        // Assess: terminal, so asked once.
        expect(error).toBeInstanceOf(UnsupportedContentEncodingError);
        expect(error).toMatchObject({ code: API_ERROR_CODES.unsupportedEncoding, encoding: coding });
        expect((error as Error).message).toContain(`'${coding}'`);
        expect((error as Error).message).toContain('gzip, x-gzip, deflate, br');
        expect(requests).toBe(1);
      },
    );

    it('fails a chain of more than five codings, like fetch (a chain of bombs)', async () => {
      // Prepare
      const server = await serve((_req, res) => {
        res.writeHead(200, { 'content-encoding': 'gzip, gzip, gzip, gzip, gzip, gzip' });
        res.end('x');
      });
      // Act
      const error = await transportFor(server.url)
        .requestJson({ method: 'GET', path: '/x' })
        .catch((e: unknown) => e);
      // Assess
      expect(error).toBeInstanceOf(ConnectionError);
      expect(String((error as Error).message)).toContain('fetch failed');
      expect(String(((error as Error).cause as Error).cause)).toContain('too many content-encodings');
    });
  });

  describe('aborts and timeouts', () => {
    it('rejects with the reason of a signal aborted before the call, and opens no connection', async () => {
      // Prepare
      const server = await serve((_req, res) => {
        res.end();
      });
      const reason = new Error('stop');
      // Act
      const error = await nodeHttpFetch(server.url, { signal: AbortSignal.abort(reason) }).catch(
        (e: unknown) => e,
      );
      await sleep(50);
      // Assess
      expect(error).toBe(reason);
      expect(server.connections).toBe(0);
    });

    it('rejects with the reason at once when aborted while waiting for headers, and closes the socket', async () => {
      // Prepare
      const server = await serve(() => undefined); // never answers
      const controller = new AbortController();
      const reason = new Error('stop');
      const call = nodeHttpFetch(server.url, { signal: controller.signal }).catch((e: unknown) => e);
      while (server.seen.length === 0) await sleep(5);
      const closed = server.socketClosed();
      // Act
      controller.abort(reason);
      // Assess
      expect(await pending(call, 1000)).toBe(reason);
      expect(await pending(closed, 1000)).toBeUndefined();
    });

    it('fails the body read with the reason when aborted mid-body, and closes the socket', async () => {
      // Prepare
      const server = await serve((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"data":['); // and nothing more
      });
      const controller = new AbortController();
      const reason = new Error('stop');
      const response = await nodeHttpFetch(server.url, { signal: controller.signal });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      await reader.read();
      const read = reader.read().catch((e: unknown) => e);
      const closed = server.socketClosed();
      // Act
      controller.abort(reason);
      // Assess
      expect(await pending(read, 1000)).toBe(reason);
      expect(await pending(closed, 1000)).toBeUndefined();
    });

    it('ends a call through the transport as AbortedError for each phase of the request', async () => {
      // Prepare
      const server = await serve((req, res) => {
        if (req.url === '/body') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{"data":[');
        } // '/headers': never answers
      });
      const transport = transportFor(server.url);
      const before = new AbortController();
      before.abort();
      const inHeaders = new AbortController();
      const inBody = new AbortController();
      // Act
      const errors = await Promise.all([
        transport
          .requestJson({ method: 'GET', path: '/headers', signal: before.signal })
          .catch((e: unknown) => e),
        transport
          .requestJson({ method: 'GET', path: '/headers', signal: inHeaders.signal })
          .catch((e: unknown) => e),
        transport
          .requestJson({ method: 'GET', path: '/body', signal: inBody.signal })
          .catch((e: unknown) => e),
        (async () => {
          await sleep(100);
          inHeaders.abort();
          inBody.abort();
        })(),
      ]);
      // Assess
      expect(errors.slice(0, 3).map((e) => e instanceof AbortedError)).toEqual([true, true, true]);
    });

    it('times out waiting for headers, and between streamed chunks, with TimeoutError', async () => {
      // Prepare
      const server = await serve((req, res) => {
        if (req.url === '/stream') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{"data":['); // then silence
        }
      });
      const transport = transportFor(server.url, { timeoutMs: 150 });
      // Act
      const headers = await transport
        .requestJson({ method: 'GET', path: '/headers' })
        .catch((e: unknown) => e);
      const stream = await transport.requestStream({ method: 'GET', path: '/stream' });
      const chunks: Uint8Array[] = [];
      const body = await (async () => {
        for await (const c of stream.body) chunks.push(c);
      })().catch((e: unknown) => e);
      // Assess
      expect(headers).toBeInstanceOf(TimeoutError);
      expect(chunks).toHaveLength(1);
      expect(body).toBeInstanceOf(TimeoutError);
    });
  });

  describe('connections', () => {
    it('reuses one kept-alive connection for calls that follow each other, after a streamed body too', async () => {
      // Prepare
      const server = await serve((req, res) =>
        req.url === '/big'
          ? json(res, { data: 'a'.repeat(2 * MiB) })
          : json(res, { ok: true }, { 'content-encoding': 'identity' }),
      );
      const transport = transportFor(server.url);
      // Act
      for (let i = 0; i < 5; i++) await transport.requestJson({ method: 'GET', path: '/x' });
      const stream = await transport.requestStream({ method: 'GET', path: '/big' });
      let bytes = 0;
      for await (const c of stream.body) bytes += c.byteLength;
      for (let i = 0; i < 5; i++) await transport.requestJson({ method: 'POST', path: '/y', json: { i } });
      // Assess
      expect(bytes).toBe(2 * MiB + '{"data":""}'.length);
      expect(server.seen).toHaveLength(11);
      expect(server.connections).toBe(1);
    });

    it('closes the connection of a body left unread (a cancel), and the next call gets a fresh one', async () => {
      // Prepare
      const server = await serve(async (req, res) => {
        if (req.url === '/big') {
          res.writeHead(200, { 'content-type': 'application/json' });
          await writeUntilGone(res, Buffer.alloc(64 * 1024, 0x61), 64 * MiB);
        } else json(res, { ok: true });
      });
      const transport = transportFor(server.url);
      const stream = await transport.requestStream({ method: 'GET', path: '/big' });
      for await (const _ of stream.body) break;
      // Act
      const { body } = await transport.requestJson({ method: 'GET', path: '/x' });
      // Assess
      expect(body).toEqual({ ok: true });
      expect(server.connections).toBe(2);
    });

    it('waits longer than the agent’s 5-second idle timeout on a reused socket (only the transport times out)', async () => {
      // Prepare
      const server = await serve(async (req, res) => {
        if (req.url === '/slow') await sleep(5_300);
        json(res, { ok: true });
      });
      const transport = transportFor(server.url, { timeoutMs: 10_000 });
      await transport.requestJson({ method: 'GET', path: '/x' });
      // Act
      const { body } = await transport.requestJson({ method: 'GET', path: '/slow' });
      // Assess
      expect(body).toEqual({ ok: true });
      expect(server.connections).toBe(1);
    }, 15_000);

    it('does not reuse a socket the server is about to close (its Keep-Alive timeout hint is honoured)', async () => {
      // Prepare
      const server = await serve((_req, res) => json(res, { ok: true }));
      server.server.keepAliveTimeout = 1000; // announced as timeout=1: too short to reuse safely
      const transport = transportFor(server.url);
      // Act
      await transport.requestJson({ method: 'POST', path: '/a', json: {} });
      await sleep(900);
      const second = await transport
        .requestJson({ method: 'POST', path: '/b', json: {} })
        .catch((e: unknown) => e);
      // Assess
      expect(second).toMatchObject({ status: 200 });
      expect(server.connections).toBe(2);
    });
  });

  describe('connection failures', () => {
    async function closedPort(): Promise<string> {
      const server = await serve(() => undefined);
      servers.pop();
      await new Promise<void>((resolve) => server.server.close(() => resolve()));
      return server.url;
    }

    it.each(['GET', 'POST'] as const)(
      'retries a refused %s (nothing was sent) and ends with ConnectionError naming ECONNREFUSED',
      async (method) => {
        // Prepare
        const url = await closedPort();
        let sleeps = 0;
        const transport = transportFor(url, {
          maxRetries: 2,
          sleep: async () => {
            sleeps++;
          },
        });
        // Act
        const error = await transport
          .requestJson({ method, path: '/x', ...(method === 'POST' ? { json: {} } : {}) })
          .catch((e: unknown) => e);
        // Assess
        expect(error).toBeInstanceOf(ConnectionError);
        expect(String((error as Error).message)).toContain('ECONNREFUSED');
        expect(isUnsentConnectionError(error)).toBe(true);
        expect(sleeps).toBe(2);
      },
    );

    it('names the origin and path it tried, never the query, when the connection is refused', async () => {
      // Prepare: the base URL as a stored login gives it, with a path prefix.
      const origin = await closedPort();
      const transport = transportFor(`${origin}/api`);
      // Act
      const error = await transport
        .requestJson({ method: 'GET', path: '/v1.0/workspaces', query: { filter: 'SECRET-TEXT' } })
        .catch((e: unknown) => e);
      // Assess
      expect(error).toBeInstanceOf(ConnectionError);
      const e = error as ConnectionError;
      expect(e.message).toBe(
        `fetch failed (ECONNREFUSED) connecting to ${origin} (GET /api/v1.0/workspaces)`,
      );
      expect(e).toMatchObject({ origin, url: `${origin}/api/v1.0/workspaces`, path: '/api/v1.0/workspaces' });
      expect(JSON.stringify({ ...e, message: e.message })).not.toContain('SECRET');
    });

    it.each([
      { method: 'GET' as const, requests: 3 },
      { method: 'POST' as const, requests: 1 },
    ])(
      'retries a $method reset after it was sent only when idempotent ($requests requests)',
      async ({ method, requests }) => {
        // Prepare
        const server = await serve((_req, res) => {
          res.destroy();
        });
        const transport = transportFor(server.url, { maxRetries: 2 });
        // Act
        const error = await transport
          .requestJson({ method, path: '/x', ...(method === 'POST' ? { json: {} } : {}) })
          .catch((e: unknown) => e);
        // Assess
        expect(error).toBeInstanceOf(ConnectionError);
        expect(error).toHaveProperty('code', API_ERROR_CODES.connection);
        expect(isUnsentConnectionError(error)).toBe(false);
        expect(String((error as Error).message)).toMatch(/ECONNRESET|socket hang up/);
        expect(server.seen).toHaveLength(requests);
      },
    );

    it.each([
      {
        name: 'a body shorter than its Content-Length',
        write: (res: ServerResponse) => {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
          res.write('{"data":[1,2,3');
        },
      },
      {
        name: 'a chunked body without its last chunk',
        write: (res: ServerResponse) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{"data":[1,2,3');
        },
      },
      {
        name: 'a gzip body cut by a reset',
        write: (res: ServerResponse) => {
          res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
          const gz = gzipSync(JSON.stringify({ data: Array.from({ length: 20_000 }, (_, i) => i) }));
          res.write(gz.subarray(0, gz.length >> 1));
        },
      },
    ])('fails $name with ConnectionError, never a short value', async ({ write }) => {
      // Prepare
      const server = await serve(async (_req, res) => {
        write(res);
        await sleep(20);
        res.socket?.destroy();
      });
      const transport = transportFor(server.url);
      // Act
      const error = await transport.requestJson({ method: 'GET', path: '/x' }).catch((e: unknown) => e);
      const stream = await transport.requestStream({ method: 'GET', path: '/x' });
      const streamed = await (async () => {
        for await (const _ of stream.body) {
          // read to the end
        }
      })().catch((e: unknown) => e);
      // Assess
      expect(error).toBeInstanceOf(ConnectionError);
      expect(String((error as Error).message)).toContain('terminated');
      expect(streamed).toBeInstanceOf(ConnectionError);
    });

    it('fails a gzip body that is not gzip as a connection error, not a crash', async () => {
      // Prepare
      const server = await serve((_req, res) => {
        res.writeHead(200, { 'content-encoding': 'gzip' });
        res.end('this is not gzip at all');
      });
      // Act
      const error = await transportFor(server.url)
        .requestJson({ method: 'GET', path: '/x' })
        .catch((e: unknown) => e);
      // Assess
      expect(error).toBeInstanceOf(ConnectionError);
      expect(String((error as Error).message)).toContain('Z_DATA_ERROR');
    });
  });

  describe('backpressure', () => {
    it.each([
      { name: 'plain', gzip: false },
      { name: 'gzip', gzip: true },
    ])('stops reading the socket while the consumer does not read ($name)', async ({ gzip }) => {
      // Prepare
      const block = randomBytes(64 * 1024); // incompressible: gzip's bytes on the wire as many
      let written = 0;
      let served: Promise<void> = Promise.resolve();
      const server = await serve((_req, res) => {
        served = (async () => {
          res.writeHead(200, {
            'content-type': 'application/octet-stream',
            ...(gzip ? { 'content-encoding': 'gzip' } : {}),
          });
          let sink: Writable = res;
          if (gzip) {
            sink = createGzip({ level: 1 });
            sink.pipe(res);
          }
          let gone = false;
          res.on('close', () => {
            gone = true;
          });
          while (!gone && written < 512 * MiB) {
            written += block.length;
            if (!sink.write(block)) await Promise.race([once(sink, 'drain'), once(res, 'close')]);
          }
          sink.end();
        })();
      });
      const stream = await transportFor(server.url).requestStream({ method: 'GET', path: '/x' });
      const iterator = stream.body[Symbol.asyncIterator]();
      await iterator.next();
      // Act: wait until the server's writes stop (a loaded machine fills the buffers slowly),
      // at most 50 looks; without backpressure they never stop and go far past the bound.
      let stalled = written;
      for (let look = 0; look < 50; look++) {
        await sleep(200);
        if (written === stalled) break;
        stalled = written;
      }
      await sleep(300);
      const later = written;
      await iterator.return?.();
      await served;
      // Assess
      expect(stalled).toBeLessThan(16 * MiB);
      expect(later).toBe(stalled);
    });
  });

  describe('https', () => {
    it('fails an untrusted certificate as a connection error naming it, and talks to a trusted one', async () => {
      // Prepare
      const { cert, key } = await createSelfSignedCertificate('127.0.0.1');
      const server = await serve(
        (_req, res) => json(res, { secure: true }),
        createHttpsServer({ cert, key }),
      );
      const dir = await mkdtemp(join(tmpdir(), 'node-fetch-ca-'));
      try {
        await writeFile(join(dir, 'ca.pem'), cert);
        const script = join(dir, 'call.mts');
        const module = new URL('../../../lib/api/http/node-fetch.ts', import.meta.url).pathname;
        await writeFile(
          script,
          `import { nodeHttpFetch } from ${JSON.stringify(module)};\n` +
            `const r = await nodeHttpFetch(${JSON.stringify(server.url)});\n` +
            'process.stdout.write(await r.text());\n',
        );
        // Act
        const untrusted = await transportFor(server.url)
          .requestJson({ method: 'GET', path: '/x' })
          .catch((e: unknown) => e);
        const trusted = await promisify(execFile)(process.execPath, ['--import', 'tsx', script], {
          cwd: new URL('../../..', import.meta.url).pathname,
          env: { ...process.env, NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem') },
        });
        // Assess
        expect(untrusted).toBeInstanceOf(ConnectionError);
        expect(String((untrusted as Error).message)).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY/);
        expect(JSON.parse(trusted.stdout)).toEqual({ secure: true });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });
});
