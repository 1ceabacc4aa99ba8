import { describe, expect, it } from 'vitest';
import { CliUsageError, parseSimArgs, SIM_USAGE } from '../../../lib/simulator/cli-options';

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

  it('lists every option in the usage text', () => {
    // Assess
    for (const option of [
      '--port',
      '--json',
      '--auto-approve',
      '--rotate-refresh-tokens',
      '--report-latency-ms',
      '--rows-per-day',
      '--row-limit',
      '--row-format',
      '--data-dir',
      '--seed',
      '--access-token-ttl',
      '--help',
    ]) {
      expect(SIM_USAGE).toContain(option);
    }
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
