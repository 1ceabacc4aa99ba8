import type { FetchLike } from '../../../lib/api';

/** One recorded call of a {@link scriptedFetch}. */
export interface RecordedCall {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

export type Step =
  | Response
  | Error
  | ((call: RecordedCall, signal: AbortSignal | undefined) => Response | Promise<Response>);

/** A fetch that answers from a script, in order, and records every call. Never touches the network. */
export function scriptedFetch(steps: Step[]): FetchLike & { calls: RecordedCall[] } {
  const calls: RecordedCall[] = [];
  let index = 0;
  const fn = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const call: RecordedCall = {
      url: new URL(String(input)),
      method: init?.method ?? 'GET',
      headers: Object.fromEntries(new Headers(init?.headers).entries()),
      body: typeof init?.body === 'string' ? init.body : undefined,
    };
    calls.push(call);
    const step = steps[Math.min(index++, steps.length - 1)];
    if (step === undefined) throw new Error('scriptedFetch: empty script');
    if (step instanceof Error) throw step;
    if (typeof step === 'function') return step(call, init?.signal ?? undefined);
    return step.clone();
  };
  return Object.assign(fn, { calls });
}

/** A JSON response. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/** An empty-body response. */
export function empty(status: number, headers: Record<string, string> = {}): Response {
  return new Response(null, { status, headers });
}

/** A fetch failure like undici's for a refused connection. */
export function refused(): Error {
  return Object.assign(new TypeError('fetch failed'), {
    cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
  });
}

/** A fetch failure like undici's for a reset connection (the request may have been sent). */
export function reset(): Error {
  return Object.assign(new TypeError('fetch failed'), {
    cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
  });
}

/** A fetch that only settles when aborted: for timeout and abort tests. */
export function hangingStep(): Step {
  return (_call, signal) =>
    new Promise<Response>((_resolve, reject) => {
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
}

/** Sleep that records its delays and returns at once. */
export function recordingSleep(): ((ms: number) => Promise<void>) & { delays: number[] } {
  const delays: number[] = [];
  const fn = async (ms: number): Promise<void> => {
    delays.push(ms);
  };
  return Object.assign(fn, { delays });
}

export const envelope = (data: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  data,
  status: 'success',
  timestamp: '2026-01-01T00:00:00.0000000Z',
  ...extra,
});
