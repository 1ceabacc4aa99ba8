import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { windowForDates } from '../../../lib/calendar';
import type { ExportOptions } from '../../../lib/export/export-options';
import { resolveExportOptions } from '../../../lib/export/resolve-export-options';
import { LocalDirectoryStore } from '../../../lib/stores';
import { resultStreamOf } from '../../support/result-stream';

function base(overrides: Partial<ExportOptions> = {}): ExportOptions {
  return {
    source: resultStreamOf([], { requestId: 'req-1' }),
    store: new LocalDirectoryStore(tmpdir()),
    reportId: 'rep-1',
    ...overrides,
  };
}

/** A result whose request the service created at `dateCreated` (its clock), in `zone`. */
function createdAt(dateCreated: string | undefined, zone = 'Europe/London'): ExportOptions['source'] {
  const source = resultStreamOf([], { requestId: 'req-1', timeZoneId: zone });
  if (dateCreated !== undefined) (source.head.request as { dateCreated?: string }).dateCreated = dateCreated;
  return source;
}

describe('resolveExportOptions', () => {
  it.each([
    // 23:30Z on the 19th: still the 19th in London, already the 20th in Sydney.
    ['the service clock, London', { source: createdAt('2026-11-19T23:30:00.1234567Z') }, '2026-11-19'],
    [
      'the service clock, Sydney',
      { source: createdAt('2026-11-19T23:30:00.1234567Z', 'Australia/Sydney'), timeZone: 'Australia/Sydney' },
      '2026-11-20',
    ],
    [
      'dataAsOf over the service clock',
      { source: createdAt('2026-11-19T23:30:00Z'), dataAsOf: '2026-11-21T08:00:00+00:00' },
      '2026-11-21',
    ],
    [
      'requestedAt when the result has no dateCreated',
      { source: createdAt(undefined), requestedAt: '2026-11-18T10:00:00Z' },
      '2026-11-18',
    ],
    [
      'requestedAt when dateCreated is unreadable',
      { source: createdAt('yesterday'), requestedAt: '2026-11-18T10:00:00Z' },
      '2026-11-18',
    ],
    [
      'now without either',
      { source: createdAt(undefined), now: () => new Date('2026-11-17T12:00:00Z') },
      '2026-11-17',
    ],
    // Read 20 minutes after London's midnight: within the settle grace, the 19th stays provisional.
    ['the grace after midnight', { source: createdAt('2026-11-20T00:20:00Z') }, '2026-11-19'],
    ['the grace passed', { source: createdAt('2026-11-20T00:30:00Z') }, '2026-11-20'],
    ['no grace', { source: createdAt('2026-11-20T00:20:00Z'), settleGraceMinutes: 0 }, '2026-11-20'],
  ])('takes the first provisional day from %s', (_, options, day) => {
    expect(resolveExportOptions(base(options as Partial<ExportOptions>)).provisionalFrom).toBe(day);
  });

  it('refuses a dataAsOf that is not an instant with an offset, naming it', () => {
    expect(() => resolveExportOptions(base({ dataAsOf: '2026-11-21T08:00:00' }))).toThrow(
      /dataAsOf must be an ISO 8601 instant with an offset, got '2026-11-21T08:00:00'/,
    );
  });

  it('fills every default when only the required options are given', () => {
    // Act
    const run = resolveExportOptions(base());

    // Assess
    expect(run).toMatchObject({
      requestId: 'req-1',
      layout: { prefix: '', dataset: 'calls', reportId: 'rep-1', csvExtension: '.csv' },
      parquetCodec: 'SNAPPY',
      csvGzip: false,
      unknownMembers: 'keep',
      outsideWindow: 'fail',
      timeZoneId: 'Europe/London',
      maxRowsPerFile: 1_000_000,
      rowGroupRows: 32_768,
      maxBufferedRows: 32_768,
      spillDirectory: tmpdir(),
      spillBudgetBytes: undefined,
      windowDates: [],
      rowWindow: undefined,
      manifestWindow: { from: '2026-01-01T00:00:00', to: '2026-12-31T23:59:59' },
      // Under vitest the sources are TypeScript: no bundled worker beside them.
      encodeWorker: false,
      signal: undefined,
    });
    expect(run.runId).toMatch(/^req-1-[0-9a-f]{8}$/);
  });

  it('derives the dates rows may fall on from the window and windowDates together when both are given', () => {
    // Act
    const run = resolveExportOptions(
      base({
        window: windowForDates('2026-06-01', '2026-06-02', 'Europe/London'),
        windowDates: ['2026-06-05'],
      }),
    );

    // Assess
    expect(run.windowDates).toEqual(['2026-06-05']);
    expect([...(run.rowWindow?.dates ?? [])].sort()).toEqual(['2026-06-01', '2026-06-02', '2026-06-05']);
  });

  it.each([
    { setting: 'parquetCodec', options: { parquetCodec: 'LZ4' as never } },
    { setting: 'unknownMembers', options: { unknownMembers: 'warn' as never } },
    { setting: 'outsideWindow', options: { outsideWindow: 'keep' as never } },
    { setting: 'maxRowsPerFile', options: { maxRowsPerFile: 0 } },
    { setting: 'rowGroupRows', options: { rowGroupRows: 1.5 } },
    { setting: 'maxBufferedRows', options: { maxBufferedRows: -1 } },
    { setting: 'runId', options: { runId: 'a b' } },
    { setting: 'windowDates', options: { windowDates: ['2026-02-30'] } },
    { setting: 'window.from', options: { window: { from: '2026-06-01', to: '2026-06-02T00:00:00Z' } } },
  ])('throws EXPORT_CONFIG_INVALID naming $setting when it is invalid', ({ setting, options }) => {
    // Act
    const act = () => resolveExportOptions(base(options));

    // Assess
    expect(act).toThrow(
      expect.objectContaining({ code: 'EXPORT_CONFIG_INVALID', name: 'ExportConfigError' }),
    );
    expect(act).toThrow(setting);
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '1000' as never])(
    'throws EXPORT_CONFIG_INVALID naming spillBudgetBytes when it is %s',
    (spillBudgetBytes) => {
      // Act
      const act = () => resolveExportOptions(base({ spillBudgetBytes }));

      // Assess
      expect(act).toThrow(expect.objectContaining({ code: 'EXPORT_CONFIG_INVALID' }));
      expect(act).toThrow('spillBudgetBytes must be a positive integer');
    },
  );

  it('keeps spillBudgetBytes when it is a positive integer', () => {
    // Act
    const run = resolveExportOptions(base({ spillBudgetBytes: 512 * 1024 * 1024 }));

    // Assess
    expect(run.spillBudgetBytes).toBe(536_870_912);
  });

  it('throws EXPORT_TIME_ZONE_INVALID when the result names a zone Intl does not know', () => {
    // Act
    const act = () =>
      resolveExportOptions(base({ source: resultStreamOf([], { timeZoneId: 'Mars/Olympus' }) }));

    // Assess
    expect(act).toThrow(expect.objectContaining({ code: 'EXPORT_TIME_ZONE_INVALID' }));
  });
});
