import { type CountryCode, parsePhoneNumberFromString } from 'libphonenumber-js';
import { describe, expect, it } from 'vitest';
import { switchForms } from '../../../lib/simulator/directories/switch-forms';

describe('switchForms', () => {
  it.each([
    ['+442079460123', 'GB', ['+442079460123', '020 7946 0123', '02079460123']],
    ['+447700900123', 'GB', ['+447700900123', '07700 900123', '07700900123']],
    ['+61255501234', 'AU', ['+61255501234', '(02) 5550 1234', '0255501234']],
    ['+12025550142', 'US', ['+12025550142', '(202) 555-0142', '1 202 555 0142', '12025550142']],
    ['+353209130456', 'GB', ['+353209130456', '00 353 20 913 0456']],
    ['+442079460123', 'US', ['+442079460123', '011 44 20 7946 0123']],
  ] as const)('writes %s for a %s tenant as %j', (e164, country, forms) => {
    // Act / Assess
    expect(switchForms(e164, country)).toEqual(forms);
  });

  it.each([
    ['+441614960999', 'GB'],
    ['+13125550177', 'US'],
    ['+61491570156', 'AU'],
    ['+819012345678', 'JP'],
    ['+4915123456789', 'DE'],
    ['+5511961234567', 'BR'],
    ['+918123456789', 'IN'],
    ['+33123456789', 'GB'],
    ['+447700900456', 'AU'],
  ] as const)('writes forms of %s that parse back to it with the tenant country %s', (e164, country) => {
    // Act
    const forms = switchForms(e164, country as CountryCode);
    // Assess: E.164 and at least one form a switch writes without it.
    expect(forms[0]).toBe(e164);
    expect(forms.filter((f) => !f.startsWith('+')).length).toBeGreaterThan(0);
    for (const form of forms) expect(parsePhoneNumberFromString(form, country)?.number).toBe(e164);
  });
});
