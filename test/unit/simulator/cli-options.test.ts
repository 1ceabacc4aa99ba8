import { describe, expect, it } from 'vitest';
import { parseSimArgs, SIM_OPTIONS, SIM_USAGE, UsageError } from '../../../lib/simulator/cli-options';

describe('parseSimArgs', () => {
  it('maps every option to SimulatorOptions when all are given', () => {
    // Act
    const cli = parseSimArgs([
      '--port=0',
      '--json',
      '--auto-approve',
      '--rotate-refresh-tokens',
      '--report-latency-ms',
      '250',
      '--rows-per-day',
      '1000',
      '--row-limit',
      '500',
      '--row-format',
      'array',
      '--extra-templates',
      '--summary-mismatch',
      '--data-dir',
      '/tmp/sim-data',
      '--living-directories',
      '--seed',
      '42',
      '--access-token-ttl',
      '60',
      '--tenants',
      '1000',
    ]);
    // Assess
    expect(cli).toEqual({
      help: false,
      json: true,
      options: {
        port: 0,
        autoApprove: true,
        rotateRefreshTokens: true,
        reportLatencyMs: 250,
        rowsPerDay: 1000,
        rowLimit: 500,
        rowFormat: 'array',
        extraTemplates: true,
        summaryMismatch: true,
        dataDir: '/tmp/sim-data',
        livingDirectories: true,
        seed: 42,
        accessTokenTtlSeconds: 60,
        tenants: 1000,
      },
    });
  });

  it.each(Object.entries(SIM_OPTIONS))('names --%s in the usage text', (name, option) => {
    // Assess
    expect(SIM_USAGE).toContain(`--${name}`);
    if ('short' in option) expect(SIM_USAGE).toContain(`-${option.short}, --${name}`);
    expect(SIM_USAGE).toContain(option.help);
  });

  it.each([
    [['--bogus'], "unknown option '--bogus'"],
    [['--port', 'eighty'], "--port must be an integer from 0 to 65535, got 'eighty'"],
    [['--port', '70000'], "--port must be an integer from 0 to 65535, got '70000'"],
    [['--port'], '--port needs a value <n>'],
    [['--port', '--json'], '--port needs a value <n>'],
    [['--rows-per-day', '-5'], "--rows-per-day must be an integer from 0 to 10000000, got '-5'"],
    [['--rows-per-day=-5'], "--rows-per-day must be an integer from 0 to 10000000, got '-5'"],
    [['positional'], "unexpected argument 'positional'"],
    [['--data-dir', ''], '--data-dir must not be empty'],
    [['--row-format', 'csv'], "--row-format must be one of 'object', 'array', got 'csv'"],
    [['--json=yes'], "--json takes no value, got 'yes'"],
    [['--tenants', '0'], "--tenants must be an integer from 1 to 100000, got '0'"],
  ])('throws a CLI_USAGE UsageError naming the flag when argv is %j', (argv, message) => {
    // Act
    const error = (() => {
      try {
        parseSimArgs(argv);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    // Assess
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toMatchObject({
      code: 'CLI_USAGE',
      exitCode: 2,
      name: 'UsageError',
      message: expect.stringContaining(message),
    });
  });

  it('shows examples in the usage text when --help is rendered', () => {
    // Assess
    expect(SIM_USAGE).toMatch(/^Usage: npm run sim -- \[options\]/);
    expect(SIM_USAGE).toContain('Examples:\n  npm run sim -- --port 0 --json --auto-approve');
  });
});
