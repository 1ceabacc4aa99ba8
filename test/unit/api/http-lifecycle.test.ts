import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type AccessTokenSource,
  API_ERROR_CODES,
  HttpTransport,
  type TransportOptions,
} from '../../../lib/api';
import { envelope, json, recordingSleep, type Step, scriptedFetch } from './scripted-fetch';

const BASE = 'http://service.test/api';

function transport(steps: Step[], extra: Partial<TransportOptions> = {}) {
  const fetch = scriptedFetch(steps);
  const sleep = recordingSleep();
  const t = new HttpTransport({ baseUrl: BASE, fetch, sleep, random: () => 0.5, ...extra });
  return { t, fetch, sleep };
}

/**
 * A body delivered on demand like a socket's: each chunk a moment after it is asked for,
 * then the end, or (`end` false) nothing more: a stalled server.
 */
function bodyOf(chunks: string[], end: boolean): Step {
  return () => {
    const queue = [...chunks];
    return new Response(
      new ReadableStream<Uint8Array>(
        {
          async pull(controller) {
            await pause(1);
            const next = queue.shift();
            if (next !== undefined) controller.enqueue(new TextEncoder().encode(next));
            else if (end) controller.close();
            else await new Promise<never>(() => undefined);
          },
        },
        { highWaterMark: 0 },
      ),
    );
  };
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('HttpTransport timers', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each([
    { name: 'requestJson', call: (t: HttpTransport) => t.requestJson({ method: 'GET', path: '/v1.0/x' }) },
    { name: 'requestText', call: (t: HttpTransport) => t.requestText({ method: 'GET', path: '/v1.0/x' }) },
  ])('leaves no timer armed when $name has succeeded', async ({ call }) => {
    // Prepare
    vi.useFakeTimers();
    const { t } = transport([json(200, envelope([]))], { timeoutMs: 30_000 });
    // Act
    await call(t);
    // Assess: an armed timer would keep a CLI process alive for timeoutMs after its last call
    expect(vi.getTimerCount()).toBe(0);
  });

  it('leaves no timer armed when a call has failed with a status error', async () => {
    // Prepare
    vi.useFakeTimers();
    const { t } = transport([json(404, { message: 'Not Found' })]);
    // Act
    const error = await t.requestJson({ method: 'GET', path: '/v1.0/x' }).catch((e: unknown) => e);
    // Assess
    expect(error).toHaveProperty('code', API_ERROR_CODES.notFound);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('does not time out a streamed body while the consumer is busy between chunks', async () => {
    // Prepare
    const { t } = transport([bodyOf(['a', 'b', 'c'], true)], { timeoutMs: 30 });
    const response = await t.requestStream({ method: 'GET', path: '/v1.0/x' });
    // Act: a slow consumer (e.g. an upload applying backpressure) is not an idle server
    const seen: string[] = [];
    for await (const chunk of response.body) {
      seen.push(new TextDecoder().decode(chunk));
      await pause(120);
    }
    // Assess
    expect(seen.join('')).toBe('abc');
  });

  it('fails with TimeoutError when the server stalls in the middle of a streamed body', async () => {
    // Prepare
    const { t } = transport([bodyOf(['a'], false)], { timeoutMs: 30 });
    const response = await t.requestStream({ method: 'GET', path: '/v1.0/x' });
    // Act
    const error = await (async () => {
      for await (const _ of response.body) {
        // the second chunk never comes
      }
    })().catch((e: unknown) => e);
    // Assess
    expect(error).toHaveProperty('code', API_ERROR_CODES.timeout);
  });
});

describe('HttpTransport bearer tokens', () => {
  it('rejects a token that is not a valid header value without sending it or retrying', async () => {
    // Prepare
    const secret = 'eyJ.SECRET-access-token.sig';
    const auth: AccessTokenSource = { getAccessToken: async () => `${secret}\r\nx-injected: 1` };
    const { t, fetch, sleep } = transport([json(200, envelope([]))], { auth, maxRetries: 3 });
    // Act
    const error = await t.requestJson({ method: 'GET', path: '/v1.0/x' }).catch((e: unknown) => e);
    // Assess
    expect(error).toHaveProperty('code', API_ERROR_CODES.validation);
    expect(String((error as Error).message)).not.toContain('SECRET');
    expect(fetch.calls).toHaveLength(0);
    expect(sleep.delays).toEqual([]);
  });
});
