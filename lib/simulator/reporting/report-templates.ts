/**
 * What each report template makes of the tenant's calls. The spec names only the
 * template of its example (a call list by user); the others are the simulator's reading
 * of the seeded reports' names or its own inventions (documented in lib/simulator/README.md).
 */

/** The facts of a call a template decides on (known before its row is written). */
export interface CallShape {
  /** Inbound from outside, outbound to outside, or between two extensions. */
  direction: 'inbound' | 'outbound' | 'internal';
  /** The call reached a hunt group (the row carries hgNum/hgName). */
  huntGroup: boolean;
  /** An extension user made, answered or was rung by the call (the row carries userName/userNum). */
  user: boolean;
  ans: 0 | 1;
  ref: 0 | 1;
  lost: 0 | 1;
}

/** Keeps a call in a report's rows or leaves it out. */
export type CallFilter = (call: Readonly<CallShape>) => boolean;

/**
 * How a template's rows are made of the calls it keeps:
 * - `calls`: one row per call, the spec's result row;
 * - `call-details`: the same rows plus the simulator's detail members (accountCode, queueSeconds,
 *   cost, recorded, trunk), after docId;
 * - `user-totals`: one row per extension user over the whole window (no start, no connId).
 */
export type RowLayout = 'calls' | 'call-details' | 'user-totals';

interface ReportTemplate {
  /** What the rows are, for people. */
  rows: string;
  /** The calls the rows are made of; every call when absent. */
  includes?: CallFilter;
  /** Default `calls`. */
  layout?: RowLayout;
}

const withUser: CallFilter = (c) => c.user;

export const REPORT_TEMPLATES = {
  CallListByUser: { rows: 'calls with an extension user (userName present)', includes: withUser },
  CallListByHuntGroup: {
    rows: 'calls that reached a hunt group (hgNum present)',
    includes: (c) => c.huntGroup,
  },
  LostCalls: { rows: 'lost calls (lost = 1)', includes: (c) => c.lost === 1 },
  CallListWithDetails: { rows: 'every call, with the detail members', layout: 'call-details' },
  SummaryByUser: {
    rows: 'one row of totals per extension user, over the calls CallListByUser lists',
    includes: withUser,
    layout: 'user-totals',
  },
} as const satisfies Record<string, ReportTemplate>;

type ReportTemplateName = keyof typeof REPORT_TEMPLATES;

/** A template as a result is built from it. */
interface ResolvedTemplate {
  /** Undefined: every call. */
  filter: CallFilter | undefined;
  layout: RowLayout;
}

/** The template of a report; a template the simulator does not know lists every call. */
export function resolveTemplate(templateName: string): ResolvedTemplate {
  if (!Object.hasOwn(REPORT_TEMPLATES, templateName)) return { filter: undefined, layout: 'calls' };
  const template: ReportTemplate = REPORT_TEMPLATES[templateName as ReportTemplateName];
  return { filter: template.includes, layout: template.layout ?? 'calls' };
}
