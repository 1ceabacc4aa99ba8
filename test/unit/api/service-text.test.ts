import { describe, expect, it } from 'vitest';
import { MAX_SERVICE_TEXT_CHARS, truncateServiceText } from '../../../lib/api/service-text';

describe('truncateServiceText', () => {
  it.each([
    { name: 'undefined', text: undefined, expected: undefined },
    { name: 'short', text: 'fine', expected: 'fine' },
    { name: 'exactly at the limit', text: 'a'.repeat(MAX_SERVICE_TEXT_CHARS), expected: 'a'.repeat(1024) },
  ])('keeps the text as is when it is $name', ({ text, expected }) => {
    // Act + Assess
    expect(truncateServiceText(text)).toBe(expected);
  });

  it('never leaves half of a surrogate pair when the cut falls inside one', () => {
    // Prepare: the emoji's high surrogate sits at the last kept position
    const text = `${'a'.repeat(MAX_SERVICE_TEXT_CHARS - 2)}😀${'b'.repeat(10)}`;
    // Act
    const cut = truncateServiceText(text);
    // Assess
    expect(cut).toBe(`${'a'.repeat(MAX_SERVICE_TEXT_CHARS - 2)}…`);
    expect(cut?.charCodeAt((cut?.length ?? 0) - 2)).toBe(0x61);
  });
});
