import { describe, expect, it } from 'vitest';
import { ExportProgressTracker } from '../../../../../lib/cli/commands/local/progress';
import type { Job } from '../../../../../lib/workflow';

describe('ExportProgressTracker', () => {
  it("names the command line's --force-replace, not the input's forceReplace, when the shrink guard held days", () => {
    // Prepare: a job, and the shrink guard's warning as ExportResults logs it.
    const lines: string[] = [];
    const job = { jobId: 'job-0001', reportId: 'r-1', reportName: 'Lost calls' } as Job;
    const tracker = new ExportProgressTracker([[job]], { update: () => {}, log: (l) => lines.push(l) });
    const logged = JSON.stringify({
      level: 'WARN',
      message: 'Partitions held by the shrink guard: the published ones stay (forceReplace replaces them)',
      jobId: 'job-0001',
      held: [{ dt: '2026-03-02', basis: 'rows', publishedRows: 400, rows: 100 }],
    });

    // Act
    tracker.finish([logged]);

    // Assess
    expect(lines[0]).toContain('--force-replace');
    expect(lines[0]).not.toContain('forceReplace');
    expect(lines[1]).toBe('  held 2026-03-02 "Lost calls": kept the published 400 rows; this run had 100');
  });

  it('shows any other warning as the handler logged it', () => {
    const lines: string[] = [];
    const tracker = new ExportProgressTracker([[]], { update: () => {}, log: (l) => lines.push(l) });
    tracker.finish([JSON.stringify({ level: 'WARN', message: 'token refresh retried' })]);
    expect(lines).toEqual(['warning: token refresh retried']);
  });
});
