import {
  DIRECTORY_FIELD_NAMES,
  type Directory,
  type DirectoryItem,
  type DirectoryItemFields,
  type Workspace,
} from '../spec';
import { DEFAULT_SEED } from './defaults';
import { DEFAULT_REDIRECT_URIS } from './oauth';
import { labelSeed, mixSeed, Prng } from './prng';

/** The one tenant the local service serves. */
export interface Tenant {
  id: string;
  name: string;
  /** IANA zone of the tenant: report periods and row times are local to it. */
  timeZoneId: string;
  /** ISO 3166 country: default region for phone normalisation. */
  countryCode: string;
  locale: string;
}

/** A configured report. */
export interface SeedReport {
  id: string;
  name: string;
  templateName: string;
  /** Applied when a request names no filterId. */
  defaultFilterId: string;
}

export interface SeedWorkspace extends Workspace {
  reports: SeedReport[];
}

export interface SeedDirectory {
  directory: Directory;
  items: DirectoryItem[];
}

/** Client and user as the OAuth server registers them (same shape as its options). */
interface SeedCredentials {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  subject: string;
  username: string;
  password: string;
}

/** Everything the service starts with, derived from one seed. */
export interface SeedData {
  tenant: Tenant;
  workspaces: SeedWorkspace[];
  directories: SeedDirectory[];
  credentials: SeedCredentials;
}

export { DEFAULT_SEED } from './defaults';

/**
 * Reports of the simulator's own templates (README: "Templates of the simulator's own"),
 * as [name, templateName]: added to the default workspace, after its other reports, with
 * {@link SeedOptions.extraTemplates}.
 */
export const EXTRA_TEMPLATE_REPORTS = [
  ['Call list with details', 'CallListWithDetails'],
  ['Summary by user', 'SummaryByUser'],
] as const satisfies readonly (readonly [string, string])[];

/** Choices of {@link createSeed} beyond the seed. */
interface SeedOptions {
  /** Add {@link EXTRA_TEMPLATE_REPORTS} to the default workspace. Default false. */
  extraTemplates?: boolean;
}

const CONTACTS: DirectoryItemFields[] = [
  {
    title: 'Ms',
    fullName: 'Amelia Hart',
    companyName: 'Hart & Daughters Ltd',
    jobTitle: 'Operations Director',
    phone1: '+447700900123',
    email: 'amelia.hart@hart-daughters.example',
  },
  {
    title: 'Mr',
    fullName: 'Tomás Ó Briain',
    companyName: 'Dublin Freight, Ltd.',
    jobTitle: 'Account Manager',
    phone1: '+353209130456',
    phone2: '+447700900456',
    email: 'tomas@dublinfreight.example',
  },
  {
    title: 'Dr',
    fullName: 'Zoë Müller',
    companyName: 'Klinik "Am See" GmbH',
    jobTitle: 'Head of Procurement',
    phone1: '+4930901820',
    email: 'z.mueller@klinik-am-see.example',
    field1: 'Key account',
  },
  {
    title: 'Mrs',
    fullName: 'Priya Natarajan',
    companyName: 'Natarajan Accountancy',
    jobTitle: 'Partner',
    phone1: '+441632960001',
    phone2: '+447700900789',
    email: 'priya@natarajan.example',
    field2: 'Prefers email',
  },
  {
    title: 'Mr',
    fullName: "James O'Connor",
    companyName: "O'Connor Plumbing",
    jobTitle: 'Owner',
    phone1: '+441632960002',
    email: 'james@oconnor-plumbing.example',
  },
  {
    fullName: 'Sakura Tanaka',
    companyName: '株式会社サンプル',
    jobTitle: 'Sales Lead',
    phone1: '+81312345678',
    email: 'sakura.tanaka@sample.example',
  },
  {
    title: 'Ms',
    fullName: 'Chloé Dubois',
    companyName: 'Boulangerie Dubois',
    phone1: '+33123456789',
    email: 'chloe@boulangerie-dubois.example',
  },
  {
    title: 'Mr',
    fullName: 'Marcus Webb',
    companyName: 'Webb, Webb and Partners',
    jobTitle: 'Solicitor',
    phone1: '+441632960003',
    phone3: '+447700900321',
    email: 'marcus.webb@webb-partners.example',
  },
];

const SUPPLIERS: DirectoryItemFields[] = [
  {
    fullName: 'Helpdesk',
    companyName: 'Northwind Telecom',
    phone1: '+441632960100',
    email: 'support@northwind.example',
  },
  {
    fullName: 'Facilities Desk',
    companyName: 'Brightclean Services',
    phone1: '+441632960101',
    email: 'desk@brightclean.example',
  },
  {
    fullName: 'Orders',
    companyName: 'Paper & Ink Co.',
    phone1: '+441632960102',
    email: 'orders@paperink.example',
  },
];

/**
 * Builds the seeded tenant, workspaces, reports, directories and credentials. The extra
 * reports draw their ids from a sequence of their own, so every other id is the same with
 * or without them.
 */
export function createSeed(seed: number = DEFAULT_SEED, options: SeedOptions = {}): SeedData {
  const ids = new Prng(mixSeed(seed, labelSeed('ids')));
  const extraIds = new Prng(mixSeed(seed, labelSeed('extra-template-reports')));
  const tenant: Tenant = {
    id: ids.guid(),
    name: 'Acme Contact Centre',
    timeZoneId: 'Europe/London',
    countryCode: 'GB',
    locale: 'en-GB',
  };
  const report = (name: string, templateName: string, from = ids): SeedReport => ({
    id: from.guid(),
    name,
    templateName,
    defaultFilterId: from.guid(),
  });
  const workspaces: SeedWorkspace[] = [
    {
      id: ids.guid(),
      name: 'Main',
      default: true,
      reports: [
        report('Call list by user', 'CallListByUser'),
        report('Call list by hunt group', 'CallListByHuntGroup'),
        report('Lost calls', 'LostCalls'),
      ],
    },
    {
      id: ids.guid(),
      name: 'Support desk',
      default: false,
      reports: [report('Support calls', 'CallListByUser')],
    },
  ];
  if (options.extraTemplates === true) {
    const main = workspaces[0] as SeedWorkspace;
    for (const [name, templateName] of EXTRA_TEMPLATE_REPORTS)
      main.reports.push(report(name, templateName, extraIds));
  }
  const directory = (
    name: string,
    description: string,
    fields: readonly string[],
    rows: DirectoryItemFields[],
  ) => {
    const directoryId = ids.guid();
    return {
      directory: { id: directoryId, name, description, fields: [...fields] },
      items: rows.map((fields) => ({ id: ids.guid(), fields: { ...fields, crmId: ids.guid() } })),
    };
  };
  const directories: SeedDirectory[] = [
    directory('Company contacts', 'Customers and partners', DIRECTORY_FIELD_NAMES, CONTACTS),
    directory(
      'Suppliers',
      'Suppliers and service desks',
      ['fullName', 'companyName', 'phone1', 'phone2', 'email', 'crmId', 'field1'],
      SUPPLIERS,
    ),
  ];
  const secretRng = new Prng(mixSeed(seed, labelSeed('secret')));
  const credentials: SeedCredentials = {
    clientId: 'report-export-local',
    clientSecret: `sim-${secretRng.guid().replaceAll('-', '')}`,
    redirectUris: [...DEFAULT_REDIRECT_URIS],
    subject: ids.guid(),
    username: 'api.admin@acme.example',
    password: 'local-password-123',
  };
  return { tenant, workspaces, directories, credentials };
}
