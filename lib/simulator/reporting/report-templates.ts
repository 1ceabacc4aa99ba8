/**
 * What each report template keeps of the tenant's calls. The spec names only the
 * template of its example (a call list by user); the others are the simulator's reading
 * of the seeded reports' names (documented in lib/simulator/README.md).
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

export interface ReportTemplate {
  /** What the rows are, for people. */
  rows: string;
  includes: CallFilter;
}

export const REPORT_TEMPLATES = {
  CallListByUser: { rows: 'calls with an extension user (userName present)', includes: (c) => c.user },
  CallListByHuntGroup: {
    rows: 'calls that reached a hunt group (hgNum present)',
    includes: (c) => c.huntGroup,
  },
  LostCalls: { rows: 'lost calls (lost = 1)', includes: (c) => c.lost === 1 },
} as const satisfies Record<string, ReportTemplate>;

export type ReportTemplateName = keyof typeof REPORT_TEMPLATES;

/** The filter of a template; undefined (every call) for a template the simulator does not know. */
export function templateFilter(templateName: string): CallFilter | undefined {
  return Object.hasOwn(REPORT_TEMPLATES, templateName)
    ? REPORT_TEMPLATES[templateName as ReportTemplateName].includes
    : undefined;
}
