import { describe, expect, it } from 'vitest';
import { parseLocalExportArgs, UsageError } from '../../../../../lib/cli/commands/local/command';
import { CLI_DEFAULTS } from '../../../../../lib/cli/shared/defaults';

describe('parseLocalExportArgs', () => {
  it('maps every option to the run options when all are given', () => {
    // Act
    const options = parseLocalExportArgs(
      [
        '--out',
        'lake',
        '--from',
        '2026-01-01',
        '--to',
        '2026-01-07',
        '--rows-per-day',
        '50',
        '--report',
        'r1',
        '--csv-gzip',
        '--secrets-file',
        's.json',
      ],
      {},
    );

    // Assess
    expect(options).toEqual({
      outDir: 'lake',
      from: '2026-01-01',
      to: '2026-01-07',
      rowsPerDay: 50,
      reportId: 'r1',
      csvGzip: true,
      secretsFile: 's.json',
    });
  });

  it('takes the workflow settings from the environment it is given, not the process', () => {
    // Act
    const options = parseLocalExportArgs([], {
      REPORT_EXPORT_MAX_JOBS_PER_EXECUTION: '3',
      REPORT_EXPORT_MAX_WINDOW_DAYS: '',
    });

    // Assess: and the declared defaults of the options left out.
    expect(options).toEqual({
      outDir: CLI_DEFAULTS.lakeDir,
      rowsPerDay: CLI_DEFAULTS.rowsPerDay,
      settings: { MAX_JOBS_PER_EXECUTION: '3' },
    });
  });

  it('throws a ConfigError naming the variable when a workflow setting is not an integer', () => {
    expect(() => parseLocalExportArgs([], { REPORT_EXPORT_MAX_WINDOW_DAYS: 'week' })).toThrow(
      "REPORT_EXPORT_MAX_WINDOW_DAYS must be an integer from 1 to 9999, got 'week'",
    );
  });

  it('returns help when asked for it', () => {
    expect(parseLocalExportArgs(['-h'], {})).toBe('help');
  });

  it.each([
    [['--rows-per-day', 'many'], /--rows-per-day must be a positive integer \(1 to 1000000\), got 'many'/],
    [['--rows-per-day', '0'], /--rows-per-day must be a positive integer \(1 to 1000000\), got '0'/],
    // A negative number is the option's value (no option starts with a digit), not a missing one.
    [['--rows-per-day', '-1'], /--rows-per-day must be a positive integer \(1 to 1000000\), got '-1'/],
    [['--rows-per-day=-1'], /--rows-per-day must be a positive integer \(1 to 1000000\), got '-1'/],
    [['--from', '2026-02-30'], /--from must be a calendar date YYYY-MM-DD, got '2026-02-30'/],
    [['--to', 'yesterday'], /--to must be a calendar date/],
    [['--bogus'], /unknown option '--bogus'/],
    [['--out'], /--out needs a value <dir>/],
    [['--csv-gzip=yes'], /--csv-gzip takes no value/],
    [['extra'], /unexpected argument 'extra'/],
  ])('throws a UsageError naming the problem when argv is %j', (argv, message) => {
    expect(() => parseLocalExportArgs(argv, {})).toThrow(UsageError);
    expect(() => parseLocalExportArgs(argv, {})).toThrow(message);
    expect(() => parseLocalExportArgs(argv, {})).toThrow(
      expect.objectContaining({ code: 'CLI_USAGE', exitCode: 2 }),
    );
  });
});
