import type { CountryCode } from 'libphonenumber-js';
import type { DirectoryItemFields } from '../../spec';
import type { Prng } from '../prng';
import { contactPhone } from './phone-plans';

/**
 * The fields of the generated directory items, and how an edit changes them. Non-ASCII,
 * apostrophes, commas, ampersands and quotes on purpose: downstream writers must keep them.
 */

/** What a directory holds: people of customers and partners, or service desks of suppliers. */
export type DirectoryKind = 'people' | 'desks';

const FIRST_NAMES = [
  'Olivia',
  'Noah',
  'Aoife',
  'Liam',
  'Émilie',
  'Mateo',
  'Yuki',
  'Arjun',
  'Chiara',
  'Kofi',
  'Ingrid',
  'Diego',
  'Sinéad',
  'Tariq',
  'Beatriz',
  'Hiroshi',
  'Fatou',
  'Oskar',
  'Leila',
  'Rhys',
  'Ananya',
  'Björn',
  'Camille',
  'Dmitri',
  'Grace',
  'Hamza',
  'Isla',
  'Jonas',
  'Kaito',
  'Lucía',
  'Marek',
  'Nia',
  'Ravi',
  'Sofía',
  'Thabo',
  'Vera',
  'Wen',
  'Zara',
  'Ethan',
  'Mia',
];

const LAST_NAMES = [
  'Okafor',
  'Fitzgerald',
  "O'Sullivan",
  'Nakamura',
  'Schröder',
  'Kowalczyk',
  'Da Silva',
  'Patel',
  'Johansson',
  'García',
  'Nguyen',
  'MacLeod',
  'Rossi',
  'Van der Berg',
  'Ahmed',
  'Dubois',
  'Novak',
  'Haddad',
  'Lindqvist',
  'Mensah',
  'Ferreira',
  'Kim',
  'Brennan',
  'Iyer',
  'Nowicki',
  'Sato',
  'Abernathy',
  'Quinn',
  'Ellison',
  'Moreau',
  'Pereira',
  'Żak',
];

const COMPANY_WORDS = [
  'Northgate',
  'Bluewater',
  'Redwood',
  'Kestrel',
  'Harbour',
  'Summit',
  'Meridian',
  'Ashford',
  'Copperleaf',
  'Silverline',
  'Oakridge',
  'Lighthouse',
  'Granite',
  'Willow',
  'Beacon',
  'Foxglove',
];

const INDUSTRIES = [
  'Logistics',
  'Dental',
  'Engineering',
  'Foods',
  'Legal',
  'Analytics',
  'Builders',
  'Travel',
  'Print',
  'Energy',
  'Insurance',
  'Motors',
];

const SUFFIXES: Readonly<Partial<Record<CountryCode, readonly string[]>>> = {
  GB: ['Ltd', 'Ltd.', 'PLC', 'LLP'],
  US: ['LLC', 'Inc.', 'Corp.'],
  AU: ['Pty Ltd'],
  NZ: ['Ltd'],
  DE: ['GmbH', 'AG', 'GmbH & Co. KG'],
  JP: ['K.K.', 'Co., Ltd.'],
  IN: ['Pvt. Ltd.'],
  BR: ['Ltda.', 'S.A.'],
  ZA: ['(Pty) Ltd'],
  AE: ['LLC', 'FZE'],
};

const JOB_TITLES = [
  'Operations Manager',
  'Finance Director',
  'Office Manager',
  'Buyer',
  'Head of IT',
  'Customer Success Lead',
  'Procurement Officer',
  'Managing Director',
  'Practice Manager',
  'Sales Engineer',
  'Accounts Assistant',
  'Facilities Coordinator',
];

const TITLES = ['Mr', 'Ms', 'Mrs', 'Dr', 'Mx'];

const DESKS = ['Accounts payable', 'Customer service', 'Orders', 'Technical support', 'Bookings', 'Returns'];

const NOTES = ['Key account', 'VIP', 'Prefers email', 'Call after 2pm', 'Renewal due, Q3'];

const slugs = new Map<string, string>();

/** Lower-case ASCII of a name, for an e-mail address (`Schröder` -> `schroder`, `O'Sullivan` -> `osullivan`). */
function slug(text: string): string {
  let ascii = slugs.get(text);
  if (ascii === undefined) {
    ascii = text
      .normalize('NFD')
      .replace(/\p{M}/gu, '')
      .replace(/[łŁżŻ]/g, (c) => (c.toLowerCase() === 'ł' ? 'l' : 'z'))
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '');
    // The names are drawn from short lists: a few thousand at most.
    if (slugs.size >= 16_384) slugs.clear();
    slugs.set(text, ascii);
  }
  return ascii;
}

function companyName(rng: Prng, country: CountryCode): string {
  const suffix = rng.pick(SUFFIXES[country] ?? ['Ltd']);
  const shape = rng.int(3);
  if (shape === 0) return `${rng.pick(LAST_NAMES)} & ${rng.pick(LAST_NAMES)} ${suffix}`;
  if (shape === 1) return `${rng.pick(COMPANY_WORDS)} ${rng.pick(INDUSTRIES)}, ${suffix}`;
  return `${rng.pick(COMPANY_WORDS)} ${rng.pick(INDUSTRIES)} ${suffix}`;
}

/** The company's mail domain: its first two words (`Oakridge Print, LLP` -> `oakridgeprint.example`). */
function domainOf(company: string): string {
  const [first = '', second = ''] = company.split(/[ ,&]+/);
  return `${slug(first) || 'mail'}${slug(second)}.example`;
}

function personEmail(fullName: string, company: string): string {
  const [first = 'contact', ...rest] = fullName.split(' ');
  return `${slug(first)}.${slug(rest.join(''))}@${domainOf(company)}`;
}

/** Only the fields the directory has. */
function within(fields: Record<string, string | undefined>, allowed: readonly string[]): DirectoryItemFields {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (value !== undefined && allowed.includes(name)) kept[name] = value;
  }
  return kept as DirectoryItemFields;
}

/** A new item's fields, drawn from `rng` (crmId a GUID, phones E.164 of `country`). */
export function draftFields(
  rng: Prng,
  kind: DirectoryKind,
  country: CountryCode,
  allowed: readonly string[],
): DirectoryItemFields {
  const company = companyName(rng, country);
  const crmId = rng.guid();
  const phone1 = contactPhone(country, rng);
  const phone2 = rng.next() < (kind === 'people' ? 0.3 : 0.2) ? contactPhone(country, rng) : undefined;
  const note = rng.next() < 0.15 ? rng.pick(NOTES) : undefined;
  if (kind === 'desks') {
    const desk = rng.pick(DESKS);
    return within(
      {
        fullName: desk,
        companyName: company,
        phone1,
        phone2,
        crmId,
        field1: note,
        email: `${slug(desk)}@${domainOf(company)}`,
      },
      allowed,
    );
  }
  const fullName = `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`;
  const title = rng.next() < 0.4 ? rng.pick(TITLES) : undefined;
  const jobTitle = rng.next() < 0.8 ? rng.pick(JOB_TITLES) : undefined;
  return within(
    {
      title,
      fullName,
      companyName: company,
      jobTitle,
      phone1,
      phone2,
      email: personEmail(fullName, company),
      crmId,
      field1: note,
    },
    allowed,
  );
}

/**
 * One edit of an item: a new job title, a new main number, a second number added or
 * removed, a move to another company (new e-mail), a new surname, or a note. Drawn from
 * `rng`; fields the directory lacks are left alone (the edit may then change nothing visible).
 */
export function editFields(
  fields: DirectoryItemFields,
  rng: Prng,
  kind: DirectoryKind,
  country: CountryCode,
  allowed: readonly string[],
): DirectoryItemFields {
  const next: Record<string, string | undefined> = { ...fields };
  const set = (name: string, value: string | undefined) => {
    if (allowed.includes(name)) next[name] = value;
  };
  const change = rng.int(6);
  if (change === 0) set('phone1', contactPhone(country, rng));
  else if (change === 1) set('phone2', next.phone2 === undefined ? contactPhone(country, rng) : undefined);
  else if (change === 2 && kind === 'people') set('jobTitle', rng.pick(JOB_TITLES));
  else if (change === 3) {
    const company = companyName(rng, country);
    set('companyName', company);
    set(
      'email',
      kind === 'people'
        ? personEmail(next.fullName ?? '', company)
        : `${slug(next.fullName ?? 'desk')}@${domainOf(company)}`,
    );
  } else if (change === 4 && kind === 'people') {
    const first = (next.fullName ?? '').split(' ')[0] ?? '';
    set('fullName', `${first} ${rng.pick(LAST_NAMES)}`);
  } else set('field1', rng.pick(NOTES));
  if (next.phone2 === undefined) delete next.phone2;
  return next as DirectoryItemFields;
}
