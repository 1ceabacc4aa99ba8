import { describe, expect, it } from 'vitest';
import {
  colors,
  formatCell,
  formatCount,
  formatDuration,
  isInteractive,
  progress,
  renderTable,
  stripAnsi,
  type TerminalStream,
} from '../../../lib/cli/shared/terminal';

function fakeStream(isTTY: boolean, columns = 80): TerminalStream & { text: string } {
  const stream = {
    text: '',
    isTTY,
    columns,
    write(chunk: string) {
      stream.text += chunk;
      return true;
    },
  };
  return stream;
}

describe('isInteractive', () => {
  it.each([
    [true, {}, true],
    [true, { TERM: 'dumb' }, false],
    [false, {}, false],
  ])('answers %s when isTTY is %s and env %j', (tty, env, expected) => {
    expect(isInteractive(fakeStream(tty), env)).toBe(expected);
  });
});

describe('colors', () => {
  it.each([
    ['a TTY', true, {}, true],
    ['a TTY with NO_COLOR=1', true, { NO_COLOR: '1' }, false],
    ['a TTY with an empty NO_COLOR', true, { NO_COLOR: '' }, true],
    ['a pipe', false, {}, false],
  ])('colours only when the stream is %s as expected', (_what, tty, env, expected) => {
    // Act
    const c = colors(fakeStream(tty), env);

    // Assess
    expect(c.enabled).toBe(expected);
    expect(c.red('x') !== 'x').toBe(expected);
    expect(stripAnsi(c.bold(c.green('ok')))).toBe('ok');
  });
});

describe('progress', () => {
  it('prints each changed status as its own line when the stream is not a TTY', () => {
    // Prepare
    const out = fakeStream(false);
    const p = progress(out, {});

    // Act
    p.update('polling');
    p.update('polling');
    p.log('done: 3 rows');
    p.update('streaming');
    p.done();
    p.update('after done');

    // Assess
    expect(out.text).toBe('polling\ndone: 3 rows\nstreaming\n');
  });

  it('redraws one line in place and keeps logged lines above it when the stream is a TTY', () => {
    // Prepare
    const out = fakeStream(true, 20);
    const p = progress(out, {});

    // Act
    p.update('a'.repeat(40));
    p.log('kept');
    p.done();

    // Assess: the status is cut to the width (19 columns), never wrapped.
    const cut = `${'a'.repeat(18)}…`;
    expect(out.text).toBe(`\r\x1b[2K${cut}\r\x1b[2Kkept\n${cut}\r\x1b[2K`);
    expect(out.text).not.toContain('\n'.repeat(2));
  });

  it('assumes 80 columns when a TTY reports a width of 0', () => {
    // Prepare
    const out = fakeStream(true, 0);
    const p = progress(out, {});

    // Act
    p.update('3/3 requested, 6 polls, 1/3 exported: 458 rows');

    // Assess
    expect(out.text).toBe('\r\x1b[2K3/3 requested, 6 polls, 1/3 exported: 458 rows');
  });
});

describe('renderTable', () => {
  it('pads columns, right-aligns numbers and escapes control characters when rendering rows', () => {
    // Act
    const text = renderTable(
      [
        { report: 'Lost calls', rows: 12, note: 'a\nb' },
        { report: 'By user', rows: 1234, note: null },
      ],
      ['report', { key: 'rows', header: 'ROWS' }, 'note'],
    );

    // Assess
    expect(text).toBe(
      [
        'report      ROWS  note',
        '----------  ----  ----',
        'Lost calls    12  a\\nb',
        'By user     1234',
        '',
      ].join('\n'),
    );
  });

  it('prints the header and rule when there are no rows', () => {
    expect(renderTable<{ dt: string }>([], ['dt'])).toBe('dt\n--\n');
  });
});

describe('formatting', () => {
  it.each([
    ['null', null, ''],
    ['a bigint', 12n, '12'],
    ['a date', new Date(Date.UTC(2026, 2, 1)), '2026-03-01T00:00:00.000Z'],
    ['an object holding a bigint', { a: 1n }, '{"a":"1"}'],
  ])('formats %s as text when it is a cell', (_what, value, expected) => {
    expect(formatCell(value)).toBe(expected);
  });

  it('writes counts and durations the same on every machine when formatting numbers', () => {
    expect(formatCount(31380)).toBe('31,380');
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(7_900)).toBe('7.9 s');
    expect(formatDuration(125_000)).toBe('2 min 05 s');
  });
});
