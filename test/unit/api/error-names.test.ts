import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import * as api from '../../../lib/api';

const ENTRY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../lib/api/index.ts');

type Api = typeof api;

/** One real instance of every error class of the client, made through `lib` (or a bundle of it). */
function instances(lib: Api): Error[] {
  const d = { method: 'GET', path: '/p', status: 500 };
  return [
    new lib.ApiError(lib.API_ERROR_CODES.server, 'm', d),
    new lib.BadRequestError('m', d),
    new lib.UnauthorizedError('m', d),
    new lib.ForbiddenError('m', d),
    new lib.NotFoundError('m', d),
    new lib.RateLimitedError('m', d),
    new lib.ServerError('m', d),
    new lib.UnexpectedStatusError('m', d),
    new lib.RedirectError('http://elsewhere.test/x', d),
    new lib.ConnectionError('m', d),
    new lib.TimeoutError('m', d),
    new lib.AbortedError('m', d),
    new lib.ProtocolError('m', d),
    new lib.ResponseTooLargeError(1024, d),
    new lib.TruncatedBodyError('m', d),
    new lib.RowCountMismatchError(2, 1, d),
    new lib.ValueTooDeepError(128, { row: 3, member: 'extra' }, d),
    new lib.UnsupportedContentEncodingError('zstd', ['gzip'], d),
    new lib.ValidationError('reportId', 'must be a GUID'),
    new lib.ReportFailedError({ reportStatus: 'Failed', statusMessage: 's', reportId: 'r', requestId: 'q' }),
    new lib.PollBudgetExhaustedError(3, 'Running'),
    new lib.OAuthError(lib.OAUTH_ERROR_CODES.invalidResponse, 'm'),
    new lib.TokenEndpointError('invalid_client', undefined, 401),
    new lib.LoginRequiredError('revoked', 400),
    new lib.AuthorizationResponseError('access_denied', undefined),
    new lib.StateMismatchError(),
    new lib.InvalidOAuthResponseError('m'),
    new lib.NoRefreshTokenError(),
    new lib.TokenPersistenceError(new Error('store down')),
  ];
}

describe('error names', () => {
  it('names every error after its class when constructed', () => {
    // Act
    const pairs = instances(api).map((e) => [e.name, e.constructor.name]);
    // Assess
    for (const [name, className] of pairs) expect(name).toBe(className);
  });

  it('lists only names that real instances carry, each once, in one list only', () => {
    // Prepare
    const names = new Set(instances(api).map((e) => e.name));
    const listed = [...api.API_TRANSIENT_ERROR_NAMES, ...api.API_TERMINAL_ERROR_NAMES];
    // Act
    const unknown = listed.filter((n) => !names.has(n));
    // Assess
    expect(unknown).toEqual([]);
    expect(new Set(listed).size).toBe(listed.length);
  });

  it("names in each code's row the class its instances carry, for every code", () => {
    // Prepare: the base classes made with a code name themselves, not the code's class.
    const made = instances(api).filter((e) => e.name !== 'ApiError' && e.name !== 'OAuthError');
    const table: Record<string, api.ApiErrorRow> = api.API_ERROR_TABLE;
    // Act
    const names = Object.fromEntries(made.map((e) => [(e as Error & { code: string }).code, e.name]));
    // Assess
    expect(Object.keys(names).sort()).toEqual(Object.keys(table).sort());
    for (const [code, name] of Object.entries(names)) expect(table[code]?.name, code).toBe(name);
  });

  it('derives the transient and terminal lists from the table', () => {
    // Assess: the lists as they were written by hand, plus the two errors of an interactive login.
    expect([...api.API_TRANSIENT_ERROR_NAMES].sort()).toEqual(
      ['ConnectionError', 'TimeoutError', 'RateLimitedError', 'ServerError', 'TruncatedBodyError'].sort(),
    );
    expect([...api.API_TERMINAL_ERROR_NAMES].sort()).toEqual(
      [
        'ReportFailedError',
        'PollBudgetExhaustedError',
        'LoginRequiredError',
        'NoRefreshTokenError',
        'ValidationError',
        'BadRequestError',
        'UnauthorizedError',
        'ForbiddenError',
        'NotFoundError',
        'UnexpectedStatusError',
        'RedirectError',
        'ResponseTooLargeError',
        'ValueTooDeepError',
        'UnsupportedContentEncodingError',
        'AuthorizationResponseError',
        'StateMismatchError',
      ].sort(),
    );
  });

  it.each([
    { name: 'a refused connection', make: () => new api.ConnectionError('m'), list: 'transient' },
    { name: 'a timeout', make: () => new api.TimeoutError('m'), list: 'transient' },
    { name: 'a 429', make: () => new api.RateLimitedError('m'), list: 'transient' },
    { name: 'a 5xx', make: () => new api.ServerError('m'), list: 'transient' },
    { name: 'a truncated body', make: () => new api.TruncatedBodyError('m'), list: 'transient' },
    { name: 'a failed report', make: () => failedReport(), list: 'terminal' },
    {
      name: 'a spent poll budget',
      make: () => new api.PollBudgetExhaustedError(1, 'Running'),
      list: 'terminal',
    },
    { name: 'invalid_grant', make: () => new api.LoginRequiredError(undefined, 400), list: 'terminal' },
    { name: 'a bad argument', make: () => new api.ValidationError('a', 'b'), list: 'terminal' },
    { name: 'a 400', make: () => new api.BadRequestError('m'), list: 'terminal' },
    { name: 'a 404', make: () => new api.NotFoundError('m'), list: 'terminal' },
    { name: 'a redirect', make: () => new api.RedirectError(undefined), list: 'terminal' },
    { name: 'an oversized body', make: () => new api.ResponseTooLargeError(1), list: 'terminal' },
  ])('puts $name in the $list list', ({ make, list }) => {
    // Act
    const name = make().name;
    // Assess
    const lists = {
      transient: (api.API_TRANSIENT_ERROR_NAMES as readonly string[]).includes(name),
      terminal: (api.API_TERMINAL_ERROR_NAMES as readonly string[]).includes(name),
    };
    expect(lists).toEqual({ transient: list === 'transient', terminal: list === 'terminal' });
  });

  it('keeps every name when the client is bundled and minified', async () => {
    // Prepare: minified, class bindings are renamed, so only literal names survive
    const dir = await mkdtemp(path.join(tmpdir(), 'api-names-'));
    try {
      const out = await build({
        entryPoints: [ENTRY],
        bundle: true,
        minify: true,
        format: 'esm',
        platform: 'node',
        write: false,
        logLevel: 'silent',
      });
      const file = path.join(dir, 'api.mjs');
      await writeFile(file, out.outputFiles[0]?.text ?? '');
      // Act
      const bundled = (await import(pathToFileURL(file).href)) as Api;
      const minifiedNames = instances(bundled).map((e) => e.name);
      // Assess
      expect(minifiedNames).toEqual(instances(api).map((e) => e.name));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

function failedReport(): api.ReportFailedError {
  return new api.ReportFailedError({
    reportStatus: 'Failed',
    statusMessage: '',
    reportId: 'r',
    requestId: 'q',
  });
}
