import { describe, expect, it } from 'vitest';
import { BACKFILL_COMMAND } from '../../../../lib/cli/commands/backfill/spec';
import { RUN_COMMAND } from '../../../../lib/cli/commands/run/spec';
import { SFN_START_COMMAND } from '../../../../lib/cli/commands/start/spec';
import { renderHelp } from '../../../../lib/command-line';

/** One line of help per option: the wrapped text joined back. */
const helpOf = (command: Parameters<typeof renderHelp>[0]) => renderHelp(command).replace(/\s+/g, ' ');

describe('--dry-run help', () => {
  it('says run --dry-run may refresh the stored login when it signs in', () => {
    // Act
    const help = helpOf(RUN_COMMAND);

    // Assess
    expect(help).toContain('write nothing but a refreshed login');
  });

  it.each([
    ['start', SFN_START_COMMAND],
    ['backfill', BACKFILL_COMMAND],
  ])(
    'says %s --dry-run prints the execution inputs, not the jobs, and where the jobs are shown',
    (_, command) => {
      // Act
      const help = helpOf(command);

      // Assess
      expect(help).toContain('print the execution inputs it would send (not the jobs');
      expect(help).toContain('run --dry-run --out <DataLakeUri> shows jobs and partitions');
    },
  );
});
