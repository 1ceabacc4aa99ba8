import { describe, expect, it } from 'vitest';
import { s256Challenge, verifyPkce } from '../../../../lib/simulator/oauth/pkce';

// RFC 7636 Appendix B.
const RFC_VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const RFC_CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('pkce', () => {
  it('derives the RFC 7636 example challenge when given its verifier', () => {
    // Act
    const challenge = s256Challenge(RFC_VERIFIER);

    // Assess
    expect(challenge).toBe(RFC_CHALLENGE);
  });

  it.each([
    ['S256 with the matching verifier', 'S256', RFC_CHALLENGE, RFC_VERIFIER, true],
    ['S256 with another verifier', 'S256', RFC_CHALLENGE, `${RFC_VERIFIER.slice(0, -1)}R`, false],
    ['plain with the same value', 'plain', RFC_VERIFIER, RFC_VERIFIER, true],
    ['plain with a too-short verifier', 'plain', 'short', 'short', false],
    ['S256 with a verifier holding bad characters', 'S256', RFC_CHALLENGE, `${RFC_VERIFIER}+`, false],
  ] as const)('answers %s -> %s', (_label, method, value, verifier, expected) => {
    // Act
    const result = verifyPkce({ method, value }, verifier);

    // Assess
    expect(result).toBe(expected);
  });
});
