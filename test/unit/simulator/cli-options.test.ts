import { describe, expect, it } from 'vitest';
import { CliUsageError, parseSimArgs, SIM_OPTIONS, SIM_USAGE } from '../../../lib/simulator/cli-options';

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
      '--data-dir',
      '/tmp/sim-data',
      '--seed',
      '42',
      '--access-token-ttl',
      '60',
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
        dataDir: '/tmp/sim-data',
        seed: 42,
        accessTokenTtlSeconds: 60,
      },
    });
  });

  it.each(Object.entries(SIM_OPTIONS))('names --%s in the usage text', (name, option) => {
    // Assess
    expect(SIM_USAGE).toContain(`--${name}`);
    if ('short' in option) expect(SIM_USAGE).toContain(`-${option.short},`);
  });

  it.each([
    [['--bogus']],
    [['--port', 'eighty']],
    [['--port', '70000']],
    [['--rows-per-day', '-5']],
    [['positional']],
    [['--data-dir', '']],
    [['--row-format', 'csv']],
  ])('throws CliUsageError when argv is %j', (argv) => {
    // Act / Assess
    expect(() => parseSimArgs(argv)).toThrow(CliUsageError);
  });
});
