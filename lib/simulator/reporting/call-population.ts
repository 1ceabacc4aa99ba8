import { labelSeed, mixSeed, Prng } from '../prng';

/** An extension user of the tenant (agent, receptionist, ...). */
export interface Agent {
  extension: string;
  /** Already JSON-encoded (quoted and escaped) so rows are built without JSON.stringify. */
  nameJson: string;
}

export interface HuntGroup {
  number: string;
  nameJson: string;
  /** Indexes into the agent list. */
  members: number[];
}

/** An external party: a number and, for some, a caller name. */
export interface ExternalParty {
  number: string;
  nameJson: string | undefined;
}

/** The people and numbers the generated calls are made of. */
export interface CallPopulation {
  agents: Agent[];
  huntGroups: HuntGroup[];
  externals: ExternalParty[];
}

// Non-ASCII, apostrophes, commas and quotes on purpose: downstream writers must escape them.
const AGENT_NAMES = [
  'Alice Smith',
  'Ben Carter',
  'Siobhán Kelly',
  'Łukasz Nowak',
  'Zoë Clarke',
  "Renée O'Neil",
  'Oluwaseun Adeyemi',
  'Mei Chen',
  'Raj Patel',
  'Fatima Al-Sayed',
  'Tom Hughes',
  'Grace Lee',
  'Dylan Evans',
  'Ingrid Sørensen',
  'Carlos Gómez',
  'Hannah Wright',
  'Kwame Mensah',
  'Laura Bianchi',
  'Niamh Byrne',
  'Owen Price',
  'Sofia Rossi',
  'Yusuf Demir',
  'Emma Walsh',
  'Jack Turner',
];

const HUNT_GROUPS = ['Sales', 'Support', 'Accounts', 'Reception'];

const CALLER_NAMES = [
  'Smith, John',
  '"Acme" Supplies',
  'Café Rouge',
  'Müller GmbH',
  'Ng, Wei & Co',
  "O'Reilly Motors",
  '株式会社テスト',
  'Ørsted A/S',
  'BARCLAYS BANK',
  'Dr. Anna Kowalska',
  'Unknown',
  'Jones \\ Sons',
  'Ana María Pérez',
  'Βασίλης Π.',
  'Tesco Stores',
  'Hotel "Sea View", Brighton',
];

function externalNumber(rng: Prng): string {
  const r = rng.next();
  // Ofcom drama ranges (01632 960xxx, 07700 900xxx) so no real subscriber is ever shown.
  if (r < 0.45) return `+441632960${String(rng.int(1000)).padStart(3, '0')}`;
  if (r < 0.85) return `+447700900${String(rng.int(1000)).padStart(3, '0')}`;
  if (r < 0.93) return `+1555010${String(rng.int(100)).padStart(2, '0')}`;
  return `+3319900${String(rng.int(10_000)).padStart(4, '0')}`;
}

/** Builds the agents, hunt groups and external callers for a seed. */
export function createCallPopulation(seed: number, externalCount = 4000): CallPopulation {
  const rng = new Prng(mixSeed(seed, labelSeed('population')));
  const agents = AGENT_NAMES.map((name, i) => ({
    extension: String(2001 + i),
    nameJson: JSON.stringify(name),
  }));
  const huntGroups = HUNT_GROUPS.map((name, i) => {
    const members: number[] = [];
    for (let a = 0; a < agents.length; a++)
      if (a % HUNT_GROUPS.length === i || rng.next() < 0.15) members.push(a);
    return { number: String(6001 + i), nameJson: JSON.stringify(name), members };
  });
  const externals: ExternalParty[] = [];
  for (let i = 0; i < externalCount; i++) {
    const named = rng.next() < 0.45;
    externals.push({
      number: externalNumber(rng),
      nameJson: named ? JSON.stringify(rng.pick(CALLER_NAMES)) : undefined,
    });
  }
  return { agents, huntGroups, externals };
}
