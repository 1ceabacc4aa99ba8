import { createGzip } from 'node:zlib';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  API_ERROR_CODES,
  HttpTransport,
  type OAuthClientConfig,
  ResponseTooLargeError,
  refreshTokens,
  ServerError,
  TRANSPORT_DEFAULTS,
} from '../../../lib/api';
import { type LoopbackServer, startLoopbackServer, writeUntilGone } from './loopback-server';

const MiB = 1024 * 1024;
const noSleep = async (): Promise<void> => undefined;

/** `size` bytes of spaces, gzipped without holding them in memory: a small body that inflates. */
async function gzipBomb(size: number): Promise<Buffer> {
  const gzip = createGzip({ level: 9 });
  const out: Buffer[] = [];
  gzip.on('data', (c: Buffer) => out.push(c));
  const done = new Promise<void>((resolve, reject) => {
    gzip.on('end', resolve);
    gzip.on('error', reject);
  });
  const block = Buffer.alloc(MiB, 0x20);
  for (let written = 0; written < size; written += block.length) {
    if (!gzip.write(block)) await new Promise<void>((resolve) => gzip.once('drain', resolve));
  }
  gzip.end();
  await done;
  return Buffer.concat(out);
}

describe('bounded response bodies', () => {
  const servers: LoopbackServer[] = [];
  let bomb: Buffer;
  beforeAll(async () => {
    bomb = await gzipBomb(64 * MiB);
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  async function serve(handler: Parameters<typeof startLoopbackServer>[0]): Promise<LoopbackServer> {
    const server = await startLoopbackServer(handler);
    servers.push(server);
    return server;
  }

  const endless = (status: number) => async (_req: unknown, res: import('node:http').ServerResponse) => {
    // Chunked, no Content-Length: only counting the bytes read can stop this.
    res.writeHead(status, { 'content-type': 'application/json' });
    res.write('{"data":"');
    await writeUntilGone(res, Buffer.alloc(64 * 1024, 0x61), 256 * MiB);
  };

  it('fails with ResponseTooLargeError after one request when a status body never ends', async () => {
    // Prepare
    const server = await serve(endless(200));
    const transport = new HttpTransport({
      baseUrl: server.url,
      maxBodyBytes: MiB,
      maxRetries: 3,
      sleep: noSleep,
    });
    // Act
    const error = await transport
      .requestJson({ method: 'GET', path: '/v1.0/status' })
      .catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error).toMatchObject({
      name: 'ResponseTooLargeError',
      code: API_ERROR_CODES.responseTooLarge,
      limitBytes: MiB,
      status: 200,
    });
    expect(server.requests).toHaveLength(1);
  });

  it('fails with ResponseTooLargeError after one request when a small gzip body inflates past the default', async () => {
    // Prepare
    expect(bomb.length).toBeLessThan(TRANSPORT_DEFAULTS.maxBodyBytes / 8); // small on the wire
    const server = await serve((_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'content-length': String(bomb.length),
      });
      res.end(bomb);
    });
    const transport = new HttpTransport({ baseUrl: server.url, maxRetries: 3, sleep: noSleep });
    // Act
    const error = await transport
      .requestJson({ method: 'GET', path: '/v1.0/status' })
      .catch((e: unknown) => e);
    // Assess
    expect(error).toMatchObject({
      code: API_ERROR_CODES.responseTooLarge,
      limitBytes: TRANSPORT_DEFAULTS.maxBodyBytes,
    });
    expect(server.requests).toHaveLength(1);
  });

  it('reads a body just under the limit whole when it is compressed', async () => {
    // Prepare
    const text = JSON.stringify({ data: 'b'.repeat(MiB - 64) });
    const gz = await new Promise<Buffer>((resolve) => {
      const z = createGzip();
      const out: Buffer[] = [];
      z.on('data', (c: Buffer) => out.push(c)).on('end', () => resolve(Buffer.concat(out)));
      z.end(text);
    });
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gz);
    });
    const transport = new HttpTransport({ baseUrl: server.url, maxBodyBytes: MiB });
    // Act
    const { body } = await transport.requestJson({ method: 'GET', path: '/v1.0/status' });
    // Assess
    expect((body as { data: string }).data).toHaveLength(MiB - 64);
  });

  it('fails with ProtocolError, never a short value, when a gzip body stops mid-stream', async () => {
    // Prepare
    const gz = await new Promise<Buffer>((resolve) => {
      const z = createGzip();
      const out: Buffer[] = [];
      z.on('data', (c: Buffer) => out.push(c)).on('end', () => resolve(Buffer.concat(out)));
      z.end(JSON.stringify({ data: Array.from({ length: 20_000 }, (_, i) => i) }));
    });
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gz.subarray(0, gz.length >> 1));
    });
    const transport = new HttpTransport({ baseUrl: server.url, maxRetries: 0 });
    // Act
    const error = await transport
      .requestJson({ method: 'GET', path: '/v1.0/status' })
      .catch((e: unknown) => e);
    // Assess
    expect(error).toHaveProperty('code', API_ERROR_CODES.protocol);
  });

  it('fails a refresh with ResponseTooLargeError after one request when the token body is a gzip bomb', async () => {
    // Prepare
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(bomb);
    });
    const config: OAuthClientConfig = {
      authUrl: server.url,
      clientId: 'c',
      clientSecret: 'SECRET-CLIENT',
      redirectUri: 'http://127.0.0.1:8000/',
    };
    // Act
    const error = await refreshTokens(config, 'SECRET-REFRESH', {
      transport: { maxRetries: 3, sleep: noSleep },
    }).catch((e: unknown) => e);
    // Assess
    expect(error).toHaveProperty('code', API_ERROR_CODES.responseTooLarge);
    expect(server.requests).toHaveLength(1);
  });

  it('keeps the status error and bounds the read when an error body never ends', async () => {
    // Prepare
    const server = await serve(endless(500));
    const transport = new HttpTransport({ baseUrl: server.url, maxBodyBytes: MiB, maxRetries: 0 });
    // Act
    const error = await transport
      .requestJson({ method: 'GET', path: '/v1.0/status' })
      .catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).cause).toBeInstanceOf(ResponseTooLargeError);
    expect(server.requests).toHaveLength(1);
  });
});
