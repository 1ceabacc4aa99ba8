import { describe, expect, it } from 'vitest';
import {
  type ContactRow,
  callNumberE164,
  contactPhoneRows,
  countryOfZone,
  normalisePhone,
} from '../../../../lib/export/contacts';
import { diallingFacts } from '../../../../lib/export/contacts/dialling';

const GB_DIALLING = { dialCountry: 'GB', callingCode: '44', iddPrefix: '00', trunkPrefix: '0' };

describe('diallingFacts', () => {
  it.each([
    ['GB', { dialCountry: 'GB', callingCode: '44', iddPrefix: '00', trunkPrefix: '0' }],
    ['US', { dialCountry: 'US', callingCode: '1', iddPrefix: '011', trunkPrefix: '1' }],
    ['AU', { dialCountry: 'AU', callingCode: '61', iddPrefix: '0011', trunkPrefix: '0' }],
    ['RU', { dialCountry: 'RU', callingCode: '7', iddPrefix: '810', trunkPrefix: '8' }],
    ['SG', { dialCountry: 'SG', callingCode: '65', iddPrefix: null, trunkPrefix: '' }],
  ] as const)('gives the dialling facts of %s', (country, facts) => {
    // Act
    const got = diallingFacts(country);
    // Assess
    expect(got).toEqual(facts);
  });

  it('gives NULL facts to a tenant without a country', () => {
    // Act
    const got = diallingFacts(undefined);
    // Assess
    expect(got).toEqual({ dialCountry: null, callingCode: null, iddPrefix: null, trunkPrefix: null });
  });
});

describe('normalisePhone', () => {
  it.each([
    ['+447700900123', 'GB', '+447700900123', 'e164'],
    ['+44 20 7946 0000', undefined, '+442079460000', 'e164'],
    ['+44 (0)20 7946 0000', 'US', '+442079460000', 'e164'],
    ['020 7946 0000', 'GB', '+442079460000', 'national'],
    ['(212) 555-0100', 'US', '+12125550100', 'national'],
    ['0044 20 7946 0000', 'GB', '+442079460000', 'national'],
    ['011 44 20 7946 0000', 'US', '+442079460000', 'national'],
    ['020 7946 0000', undefined, null, 'invalid'],
    ['2001', 'GB', null, 'invalid'],
    ['anonymous', 'GB', null, 'invalid'],
    ['+44 20 7946 0000 ext. 12', 'GB', '+442079460000', 'e164'],
  ] as const)('reads %j in %s as %s (%s)', (asSent, country, e164, match) => {
    // Act
    const read = normalisePhone(asSent, country);
    // Assess
    expect(read).toEqual({ e164, match });
  });
});

describe('callNumberE164', () => {
  it.each([
    ['07700 900123', 'GB', '+447700900123'],
    ['0044 7700 900123', 'GB', '+447700900123'],
    ['00 1 212 555 0100', 'GB', '+12125550100'],
    ['011 44 7700 900123', 'US', '+447700900123'],
    ['+447700900123', undefined, '+447700900123'],
    ['2001', 'GB', undefined],
    ['', 'GB', undefined],
    [null, 'GB', undefined],
  ] as const)('reads the call number %j in %s as %s', (raw, country, e164) => {
    // Act
    const read = callNumberE164(raw, country);
    // Assess
    expect(read).toBe(e164);
  });
});

describe('countryOfZone', () => {
  it.each([
    ['Europe/London', 'GB'],
    ['America/New_York', 'US'],
    ['America/Los_Angeles', 'US'],
    ['Europe/Paris', 'FR'],
    ['Australia/Sydney', 'AU'],
    ['Asia/Kolkata', 'IN'],
    ['Asia/Calcutta', 'IN'],
    ['US/Eastern', 'US'],
    ['Europe/Busingen', 'DE'],
    ['UTC', undefined],
    ['Etc/GMT+1', undefined],
    ['Mars/Olympus_Mons', undefined],
  ])('gives %s the country %s', (zone, country) => {
    // Act
    const found = countryOfZone(zone);
    // Assess
    expect(found).toBe(country);
  });
});

describe('contactPhoneRows', () => {
  it('makes a row per phone field of each live version, none for a deletion version', () => {
    // Prepare
    const base: ContactRow = {
      tenant: 't',
      directoryId: 'd',
      itemId: 'i',
      directoryName: 'n',
      fields: { fullName: 'Ada', phone1: '+447700900123', phone3: '01632 960102' },
      extra: null,
      validFrom: 1000,
      validTo: 2000,
      isCurrent: false,
      isDeleted: false,
      contentHash: 'h',
    };
    const deletion: ContactRow = {
      ...base,
      validFrom: 2000,
      validTo: null,
      isCurrent: true,
      isDeleted: true,
    };
    // Act
    const rows = contactPhoneRows([base, deletion], 'GB');
    // Assess
    expect(rows).toEqual([
      {
        tenant: 't',
        directoryId: 'd',
        itemId: 'i',
        validFrom: 1000,
        phoneField: 'phone1',
        phoneAsSent: '+447700900123',
        phoneE164: '+447700900123',
        match: 'e164',
        isCurrent: false,
        ...GB_DIALLING,
      },
      {
        tenant: 't',
        directoryId: 'd',
        itemId: 'i',
        validFrom: 1000,
        phoneField: 'phone3',
        phoneAsSent: '01632 960102',
        phoneE164: '+441632960102',
        match: 'national',
        isCurrent: false,
        ...GB_DIALLING,
      },
    ]);
  });
});
