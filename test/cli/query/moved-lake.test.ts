import { cp, mkdir } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../../support/cli-in-process';
import { useTempDir } from '../../support/test-scope';
import { writeTableLake } from '../tables/table-lake';

describe('report-export query over a lake directory that was moved', () => {
  const dir = useTempDir('query-moved-');

  it('names the lake as moved from its old place, with the remedy, and reads it at that place', async () => {
    // Prepare: a lake written in one directory, copied to another (its metadata's URIs name the first).
    const written = path.join(dir(), 'written');
    const moved = path.join(dir(), 'moved');
    await mkdir(written);
    await writeTableLake(written);
    await cp(written, moved, { recursive: true });
    const sql = 'SELECT count(*) AS n FROM calls';

    // Act
    const there = await runInProcess(['query', '--dir', moved, '--json', sql]);
    const original = await runInProcess(['query', '--dir', written, '--json', sql]);

    // Assess: exit 2 naming both places and what to do; the lake at its own place reads.
    expect(there.code).toBe(2);
    expect(there.stderr).toContain(`the lake at ${moved} was moved or copied from ${written}`);
    expect(there.stderr).toContain(`ln -s ${moved} ${written}`);
    expect(there.stderr).not.toContain('names a file outside it');
    expect(original.code, original.stderr).toBe(0);
    expect(JSON.parse(original.stdout)).toEqual([{ n: 11 }]);
  });
});
