import { describe, expect, it } from 'vitest';
import { reconcile, TotalsCounter } from '../../../lib/export/reconcile';
import type { ResultRow, SummaryEntry } from '../../../lib/spec/types';
import { concatResults } from '../../../lib/workflow/concat-result';
import { callsOn, resultStreamOf } from '../../support/result-stream';

/** The service's summary of some rows: one entry with their totals. */
function summaryOf(rows: readonly ResultRow[]): SummaryEntry[] {
  const counter = new TotalsCounter();
  for (const row of rows) counter.add(row);
  return [{ ...counter.totals }];
}

/** The day's rows in three pieces, each piece its own result with its own summary. */
function pieces(summaries: (SummaryEntry[] | undefined)[]) {
  const day = callsOn(['2026-11-18'], 9, 'p');
  const parts = [day.slice(0, 3), day.slice(3, 7), day.slice(7)];
  const openers = parts.map((rows, i) => async () => {
    const summary = summaries[i];
    return resultStreamOf(rows, {
      requestId: `req-${i}`,
      replacedCharacters: i,
      ...(summary === undefined ? {} : { summary }),
    });
  });
  return { day, parts, openers };
}

async function readAll(openers: Parameters<typeof concatResults>[0]) {
  const whole = await concatResults(openers);
  const rows: ResultRow[] = [];
  for await (const row of whole.rows) rows.push(row);
  return { rows, meta: await whole.done() };
}

describe('concatResults', () => {
  it("gives the day's summary as every piece's entries, so the day reconciles with its rows when each piece did", async () => {
    // Prepare: three pieces of one day, each with the summary of its own rows.
    const { day, parts } = pieces([]);
    const summed = pieces(parts.map(summaryOf));
    // Act
    const { rows, meta } = await readAll(summed.openers);
    // Assess
    expect(rows).toHaveLength(day.length);
    expect(meta.totalCount).toBe(day.length);
    expect(meta.summary).toEqual(parts.flatMap(summaryOf));
    const counter = new TotalsCounter();
    for (const row of rows) counter.add(row);
    expect(reconcile(meta.summary, counter.totals).matches).toBe(true);
    expect(meta.replacedCharacters).toBe(0 + 1 + 2);
  });

  it('still reports a real disagreement of one piece', async () => {
    const { parts } = pieces([]);
    const skewed = parts.map(summaryOf);
    (skewed[0] as SummaryEntry[])[0] = { ...(skewed[0]?.[0] as SummaryEntry), ans: 1000 };
    const { rows, meta } = await readAll(pieces(skewed).openers);
    const counter = new TotalsCounter();
    for (const row of rows) counter.add(row);
    expect(reconcile(meta.summary, counter.totals).differences).toEqual(['ans']);
  });

  it('gives the day no summary (nothing compared) when a piece with rows carried none', async () => {
    const { parts } = pieces([]);
    const summaries = parts.map(summaryOf);
    const { meta } = await readAll(pieces([summaries[0], undefined, summaries[2]]).openers);
    expect(meta.summary).toEqual([]);
  });
});
