import { describe, expect, it } from 'vitest';
import { CSV_FAULT_CODES, readCsv } from '../../../lib/cli/commands/directory/csv';

const read = (text: string) => [...readCsv(text)];

describe('readCsv', () => {
  it('reads quoted fields with embedded commas, doubled quotes and CRLF line ends when given RFC 4180 text', () => {
    // Act
    const entries = read('a,b,c\r\n"Hart, Amelia","say ""hi""",x\r\n');

    // Assess
    expect(entries).toEqual([
      { kind: 'record', line: 1, fields: ['a', 'b', 'c'] },
      { kind: 'record', line: 2, fields: ['Hart, Amelia', 'say "hi"', 'x'] },
    ]);
  });

  it('keeps line breaks inside a quoted field and counts them for the next line number when a field spans lines', () => {
    // Act
    const entries = read('a,b\n"two\r\nlines",x\ny,z');

    // Assess
    expect(entries).toEqual([
      { kind: 'record', line: 1, fields: ['a', 'b'] },
      { kind: 'record', line: 2, fields: ['two\r\nlines', 'x'] },
      { kind: 'record', line: 4, fields: ['y', 'z'] },
    ]);
  });

  it('drops a UTF-8 byte order mark when the text starts with one', () => {
    expect(read('\uFEFFcrmId,fullName\n')).toEqual([
      { kind: 'record', line: 1, fields: ['crmId', 'fullName'] },
    ]);
  });

  it('skips empty lines but keeps counting them when the file has blank lines', () => {
    expect(read('a\n\n\r\nb\n')).toEqual([
      { kind: 'record', line: 1, fields: ['a'] },
      { kind: 'record', line: 4, fields: ['b'] },
    ]);
  });

  it('reads empty fields, a quoted empty field and a trailing empty field when cells are blank', () => {
    expect(read('a,,""\n,')).toEqual([
      { kind: 'record', line: 1, fields: ['a', '', ''] },
      { kind: 'record', line: 2, fields: ['', ''] },
    ]);
  });

  it('reports an unterminated quote on the line it opens and reads the lines after it when a quote never closes', () => {
    // Act
    const entries = read('h1,h2\n"open,x\nok,1\nfine,2\n');

    // Assess
    expect(entries).toEqual([
      { kind: 'record', line: 1, fields: ['h1', 'h2'] },
      expect.objectContaining({ kind: 'fault', line: 2, code: CSV_FAULT_CODES.unterminatedQuote }),
      { kind: 'record', line: 3, fields: ['ok', '1'] },
      { kind: 'record', line: 4, fields: ['fine', '2'] },
    ]);
  });

  it('swallows no row when a stray quote pairs with a quote lines below', () => {
    // Act
    const entries = read('h1,h2\n"open,x\nok,1\n"fine",2\n');

    // Assess
    expect(entries).toEqual([
      { kind: 'record', line: 1, fields: ['h1', 'h2'] },
      expect.objectContaining({ kind: 'fault', line: 2, code: CSV_FAULT_CODES.textAfterQuote }),
      { kind: 'record', line: 3, fields: ['ok', '1'] },
      { kind: 'record', line: 4, fields: ['fine', '2'] },
    ]);
  });

  it.each([
    ['text after a closing quote', 'h\n"a"b,c\nnext\n', CSV_FAULT_CODES.textAfterQuote],
    ['a quote inside an unquoted field', 'h\nab"c,d\nnext\n', CSV_FAULT_CODES.quoteInField],
  ])('reports %s with its line and goes on with the next line', (_case, text, code) => {
    // Act
    const entries = read(text);

    // Assess
    expect(entries).toEqual([
      { kind: 'record', line: 1, fields: ['h'] },
      expect.objectContaining({ kind: 'fault', line: 2, code }),
      { kind: 'record', line: 3, fields: ['next'] },
    ]);
  });

  it('reports a broken multi-line field on its first line and each line after it when junk follows its closing quote', () => {
    // Act
    const entries = read('"a\nb"x\nlast\n');

    // Assess
    expect(entries).toEqual([
      expect.objectContaining({ kind: 'fault', line: 1, code: CSV_FAULT_CODES.textAfterQuote }),
      expect.objectContaining({ kind: 'fault', line: 2, code: CSV_FAULT_CODES.quoteInField }),
      { kind: 'record', line: 3, fields: ['last'] },
    ]);
  });

  it('yields nothing when the text is empty or only a byte order mark', () => {
    expect(read('')).toEqual([]);
    expect(read('\uFEFF')).toEqual([]);
  });
});
