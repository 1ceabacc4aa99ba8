import { describe, expect, it } from 'vitest';
import {
  type AccessTokenSource,
  API_ERROR_CODES,
  BadRequestError,
  HttpTransport,
  NotFoundError,
  RateLimitedError,
  ServerError,
  TimeoutError,
  type TransportOptions,
  UnauthorizedError,
} from '../../../lib/api';
import { createStatusError } from '../../../lib/api/http/status-error';
import {
  empty,
  envelope,
  hangingStep,
  json,
  recordingSleep,
  refused,
  reset,
  type Step,
  scriptedFetch,
} from './scripted-fetch';

const BASE = 'http://service.test/api';
const SECRET_TOKEN = 'eyJhbGciOiJSUzI1NiJ9.secret-token-value.sig';

function transport(steps: Step[], extra: Partial<TransportOptions> = {}) {
  const fetch = scriptedFetch(steps);
  const sleep = recordingSleep();
  const t = new HttpTransport({ baseUrl: BASE, fetch, sleep, random: () => 0.5, maxRetries: 3, ...extra });
  return { t, fetch, sleep };
}

describe('HttpTransport', () => {
  it.each([
    { status: 408, retried: true },
    { status: 429, retried: true },
    { status: 500, retried: true },
    { status: 502, retried: true },
    { status: 503, retried: true },
    { status: 400, retried: false },
    { status: 401, retried: false },
    { status: 404, retried: false },
  ])('retries a GET $status: $retried', async ({ status, retried }) => {
    // Prepare
    const { t, fetch } = transport([empty(status), json(200, envelope([1]))]);
    // Act
    const outcome = await t.requestJson({ method: 'GET', path: '/v1.0/x' }).then(
      (r) => r.body,
      (e: unknown) => e,
    );
    // Assess
    expect(fetch.calls).toHaveLength(retried ? 2 : 1);
    if (retried) expect(outcome).toEqual(envelope([1]));
    else expect(outcome).toHaveProperty('status', status);
  });

  it.each([
    { name: 'refused connection', step: refused(), retried: true },
    { name: 'reset connection', step: reset(), retried: false },
    { name: '503 with Retry-After', step: empty(503, { 'retry-after': '1' }), retried: true },
    { name: '503 without Retry-After', step: empty(503), retried: false },
    { name: '429 with Retry-After', step: empty(429, { 'retry-after': '2' }), retried: true },
    { name: '500', step: empty(500), retried: false },
    { name: '408', step: empty(408), retried: true },
  ])(
    'retries a POST after $name only when it cannot have been processed: $retried',
    async ({ step, retried }) => {
      // Prepare
      const { t, fetch } = transport([step, json(200, envelope({ ok: true }))]);
      // Act
      const result = await t.requestJson({ method: 'POST', path: '/v1.0/x', json: {} }).then(
        () => 'ok',
        (e: unknown) => (e as { code: string }).code,
      );
      // Assess
      expect(fetch.calls).toHaveLength(retried ? 2 : 1);
      expect(result === 'ok').toBe(retried);
    },
  );

  it('honours Retry-After in seconds and as an HTTP date when rate limited', async () => {
    // Prepare
    const date = new Date(Date.now() + 30_000).toUTCString();
    const { t, sleep } = transport([
      empty(429, { 'retry-after': '3' }),
      empty(503, { 'retry-after': date }),
      json(200, envelope([])),
    ]);
    // Act
    await t.requestJson({ method: 'GET', path: '/v1.0/x' });
    // Assess
    expect(sleep.delays[0]).toBe(3000);
    expect(sleep.delays[1]).toBeGreaterThan(25_000);
    expect(sleep.delays[1]).toBeLessThanOrEqual(30_000);
  });

  it('gives up with RateLimitedError when Retry-After exceeds the cap', async () => {
    // Prepare
    const { t, fetch } = transport([empty(429, { 'retry-after': '3600' })], { maxRetryAfterMs: 60_000 });
    // Act
    const error = await t.requestJson({ method: 'GET', path: '/v1.0/x' }).catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(3_600_000);
    expect(fetch.calls).toHaveLength(1);
  });

  it('stops after maxRetries with backoff delays bounded by the exponential ceiling', async () => {
    // Prepare
    const { t, fetch, sleep } = transport([empty(503)], {
      maxRetries: 4,
      retryBaseDelayMs: 100,
      retryMaxDelayMs: 400,
      random: () => 0.999,
    });
    // Act
    const error = await t.requestJson({ method: 'GET', path: '/v1.0/x' }).catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(ServerError);
    expect(fetch.calls).toHaveLength(5);
    expect(sleep.delays).toEqual([99, 199, 399, 399]);
  });

  it('lets a per-call maxRetries override the default when given', async () => {
    // Prepare
    const { t, fetch } = transport([empty(500)]);
    // Act
    await t.requestJson({ method: 'GET', path: '/v1.0/x', maxRetries: 0 }).catch(() => undefined);
    // Assess
    expect(fetch.calls).toHaveLength(1);
  });

  it('fails with TimeoutError when the server does not answer within timeoutMs', async () => {
    // Prepare
    const { t, fetch } = transport([hangingStep()], { timeoutMs: 20, maxRetries: 1 });
    // Act
    const error = await t.requestJson({ method: 'GET', path: '/v1.0/x' }).catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(TimeoutError);
    expect(fetch.calls).toHaveLength(2);
  });

  it('fails with AbortedError and no retry when the caller aborts', async () => {
    // Prepare
    const { t, fetch } = transport([hangingStep()], { timeoutMs: 10_000 });
    const controller = new AbortController();
    // Act
    const pending = t
      .requestJson({ method: 'GET', path: '/v1.0/x', signal: controller.signal })
      .catch((e: unknown) => e);
    controller.abort(new Error('user stop'));
    const error = await pending;
    // Assess
    expect(error).toHaveProperty('code', API_ERROR_CODES.aborted);
    expect(fetch.calls).toHaveLength(1);
  });

  it('carries status, service message, timestamp, method and path but never the token when the service errs', async () => {
    // Prepare
    const body = {
      error: 400,
      message: "The value 'x' is not valid.",
      status: 'error',
      timestamp: '2026-01-01T00:00:00Z',
    };
    const auth: AccessTokenSource = { getAccessToken: async () => SECRET_TOKEN };
    const { t, fetch } = transport([json(400, body)], { auth });
    // Act
    const error = (await t
      .requestJson({ method: 'GET', path: '/v1.0/items', query: { filter: 'x' } })
      .catch((e: unknown) => e)) as BadRequestError;
    // Assess
    expect(fetch.calls[0]?.headers.authorization).toBe(`Bearer ${SECRET_TOKEN}`);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({
      status: 400,
      serviceMessage: body.message,
      serviceTimestamp: body.timestamp,
      method: 'GET',
      path: '/api/v1.0/items',
    });
    const everything = JSON.stringify({ ...error, message: error.message, stack: error.stack });
    expect(everything).not.toContain(SECRET_TOKEN);
  });

  it('cuts the service message to 1 KiB when an error body carries a huge one', async () => {
    // Prepare
    const message = `${'é'.repeat(600)}${'x'.repeat(200_000)}`;
    const { t } = transport([json(400, { message, timestamp: 't'.repeat(5000) })]);
    // Act
    const error = (await t
      .requestJson({ method: 'GET', path: '/v1.0/x' })
      .catch((e: unknown) => e)) as BadRequestError;
    // Assess
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.serviceMessage).toHaveLength(1024);
    expect(error.serviceMessage?.startsWith('é'.repeat(600))).toBe(true);
    expect(error.serviceMessage?.endsWith('…')).toBe(true);
    expect(error.serviceTimestamp).toHaveLength(1024);
    expect(error.message.length).toBeLessThan(1200);
  });

  it('invalidates the token and retries once when the service answers 401', async () => {
    // Prepare
    const tokens = ['old', 'new', 'newer'];
    const invalidated: string[] = [];
    const auth: AccessTokenSource = {
      getAccessToken: async () => tokens[invalidated.length] as string,
      invalidate: (token) => invalidated.push(token),
    };
    const { t, fetch } = transport([empty(401), empty(401)], { auth });
    // Act
    const error = await t.requestJson({ method: 'GET', path: '/v1.0/x' }).catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect(invalidated).toEqual(['old']);
    expect(fetch.calls.map((c) => c.headers.authorization)).toEqual(['Bearer old', 'Bearer new']);
  });

  it('fails with ProtocolError when the body is not JSON', async () => {
    // Prepare
    const { t } = transport([new Response('<html>', { status: 200 })]);
    // Act
    const error = await t.requestJson({ method: 'GET', path: '/v1.0/x' }).catch((e: unknown) => e);
    // Assess
    expect(error).toHaveProperty('code', API_ERROR_CODES.protocol);
  });

  it('parses JSON when the media type is octet-stream', async () => {
    // Prepare
    const { t } = transport([
      new Response(JSON.stringify(envelope([{ id: 'a' }])), {
        headers: { 'content-type': 'application/octet-stream; charset=utf-8' },
      }),
    ]);
    // Act
    const { body } = await t.requestJson({ method: 'GET', path: '/v1.0/x' });
    // Assess
    expect(body).toEqual(envelope([{ id: 'a' }]));
  });

  it('repeats query values once per value when given an array', async () => {
    // Prepare
    const { t, fetch } = transport([json(200, envelope([]))]);
    // Act
    await t.requestJson({
      method: 'GET',
      path: '/v1.0/x',
      query: { fields: ['phone1', 'phone2'], filter: 'a b&c' },
    });
    // Assess
    expect(fetch.calls[0]?.url.search).toBe('?fields=phone1&fields=phone2&filter=a+b%26c');
  });
});

describe('createStatusError', () => {
  it.each([
    { status: 400, type: BadRequestError, code: 'API_BAD_REQUEST' },
    { status: 401, type: UnauthorizedError, code: 'API_UNAUTHORIZED' },
    { status: 403, type: Error, code: 'API_FORBIDDEN' },
    { status: 404, type: NotFoundError, code: 'API_NOT_FOUND' },
    { status: 408, type: TimeoutError, code: 'API_TIMEOUT' },
    { status: 409, type: Error, code: 'API_UNEXPECTED_STATUS' },
    { status: 429, type: RateLimitedError, code: 'API_RATE_LIMITED' },
    { status: 500, type: ServerError, code: 'API_SERVER_ERROR' },
    { status: 504, type: ServerError, code: 'API_SERVER_ERROR' },
  ])('makes $code when the status is $status', ({ status, type, code }) => {
    // Act
    const error = createStatusError(status, { message: 'm' }, { method: 'GET', path: '/p' });
    // Assess
    expect(error).toBeInstanceOf(type);
    expect(error.code).toBe(code);
    expect(error.status).toBe(status);
  });
});

describe('HttpTransport with a slow token source', () => {
  it('fails with TimeoutError when the token does not arrive within timeoutMs', async () => {
    // Prepare
    const auth: AccessTokenSource = {
      getAccessToken: (signal) =>
        new Promise((_resolve, reject) =>
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true }),
        ),
    };
    const { t, fetch } = transport([json(200, envelope([]))], { auth, timeoutMs: 20 });
    // Act
    const error = await t.requestJson({ method: 'GET', path: '/v1.0/x' }).catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(TimeoutError);
    expect(fetch.calls).toHaveLength(0);
  });
});
