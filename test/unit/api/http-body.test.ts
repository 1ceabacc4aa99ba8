import { describe, expect, it } from 'vitest';
import { API_ERROR_CODES, HttpTransport, ResponseTooLargeError } from '../../../lib/api';
import { recordingSleep, type Step, scriptedFetch } from './scripted-fetch';

const KiB = 1024;

/**
 * A body that hands out `chunkBytes` per pull up to 8 MiB (far past every limit here, and
 * bounded so a client that reads it all still ends), counting what it gave and whether it
 * was cancelled.
 */
function endlessBody(chunkBytes: number, headers: Record<string, string> = {}) {
  const seen = { pulled: 0, cancelled: false };
  const step: Step = () =>
    new Response(
      new ReadableStream<Uint8Array>(
        {
          pull(controller) {
            if (seen.pulled >= 8 * 1024 * KiB) return controller.close();
            seen.pulled += chunkBytes;
            controller.enqueue(new Uint8Array(chunkBytes).fill(0x61));
          },
          cancel() {
            seen.cancelled = true;
          },
        },
        { highWaterMark: 0 },
      ),
      { status: 200, headers },
    );
  return { step, seen };
}

function transport(steps: Step[], maxBodyBytes: number) {
  const fetch = scriptedFetch(steps);
  const t = new HttpTransport({
    baseUrl: 'http://service.test/api',
    fetch,
    sleep: recordingSleep(),
    maxBodyBytes,
    maxRetries: 3,
    timeoutMs: 5_000,
  });
  return { t, fetch };
}

describe('HttpTransport body limit', () => {
  it('cancels the body just past the limit when it never ends', async () => {
    // Prepare
    const { step, seen } = endlessBody(16 * KiB);
    const { t, fetch } = transport([step], 64 * KiB);
    // Act
    const error = await t.requestText({ method: 'GET', path: '/v1.0/x' }).catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(seen.cancelled).toBe(true);
    expect(seen.pulled).toBeLessThanOrEqual(64 * KiB + 2 * 16 * KiB);
    expect(fetch.calls).toHaveLength(1);
  });

  it('counts the bytes when Content-Length claims a small body', async () => {
    // Prepare
    const { step, seen } = endlessBody(16 * KiB, { 'content-length': '10' });
    const { t } = transport([step], 64 * KiB);
    // Act
    const error = await t.requestJson({ method: 'GET', path: '/v1.0/x' }).catch((e: unknown) => e);
    // Assess
    expect(error).toHaveProperty('code', API_ERROR_CODES.responseTooLarge);
    expect(seen.cancelled).toBe(true);
  });

  it('fails before reading when an uncompressed body declares a length over the limit', async () => {
    // Prepare: only the declared length can fail it before a byte is read
    const { step, seen } = endlessBody(16 * KiB, { 'content-length': String(10 * 1024 * KiB) });
    const { t } = transport([step], 64 * KiB);
    // Act
    const error = await t.requestJson({ method: 'GET', path: '/v1.0/x' }).catch((e: unknown) => e);
    // Assess
    expect(error).toHaveProperty('code', API_ERROR_CODES.responseTooLarge);
    expect(seen.pulled).toBe(0);
  });

  it('reads a body of exactly the limit when it ends there', async () => {
    // Prepare
    const text = JSON.stringify({ data: 'x'.repeat(64 * KiB - 11) });
    const { t } = transport([new Response(text, { status: 200 })], 64 * KiB);
    // Act
    const { body } = await t.requestJson({ method: 'GET', path: '/v1.0/x' });
    // Assess
    expect(text).toHaveLength(64 * KiB);
    expect((body as { data: string }).data).toHaveLength(64 * KiB - 11);
  });
});
