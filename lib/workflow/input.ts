import { z } from 'zod';
import { isGuid } from '../api/validate';
import { parseCalendarDate, parseInstant } from '../calendar';
import { TENANT_ID_PATTERN, TENANT_ID_RULE } from '../export';
import { PRESET_NAMES } from '../spec';
import { InvalidInputError } from './errors';

/** A refinement that holds when `parse` (which throws on a bad value) accepts the text. */
const accepts = (parse: (text: string) => unknown) => (text: string) => {
  try {
    parse(text);
    return true;
  } catch {
    return false;
  }
};

/** A calendar date that exists (`2026-02-30` does not), as the window module reads dates. */
const calendarDate = z.string().refine(
  accepts((t) => parseCalendarDate('date', t)),
  'must be a calendar date that exists, as YYYY-MM-DD',
);

const condition = z.strictObject({
  fieldName: z.string().min(1),
  operator: z.string().min(1),
  values: z.array(z.string()).max(1000),
});

/** What an execution does with the tenant's contact directories (the input's `contacts`). */
export const CONTACTS_MODES = ['sync', 'skip', 'only'] as const;
export type ContactsMode = (typeof CONTACTS_MODES)[number];

/** The members of a report export, which `contacts: "only"` refuses (forceReplace it takes: the shrink guard's release). */
const ONLY_REFUSES = [
  'intraday',
  'scheduledTime',
  'date',
  'from',
  'to',
  'preset',
  'reports',
  'filterId',
  'additionalConditions',
  'parentRunId',
] as const;

/**
 * The one execution input of the workflow. Exactly one of `scheduledTime` (nightly, from
 * EventBridge Scheduler), `intraday` (today so far; with the refresh schedule's
 * `scheduledTime`, or as of now), `date`, `from`+`to` (an inclusive backfill) or `preset`; in a
 * multi-tenant deployment, the `tenant` it runs for (Plan requires it there and refuses it
 * in a single-tenant one); `contacts` (see CONTACTS_MODES): with `"only"`, none of the
 * report members (the execution syncs the directories alone).
 */
const EXECUTION_INPUT_SCHEMA = z
  .strictObject({
    tenant: z.string().regex(TENANT_ID_PATTERN, `must be ${TENANT_ID_RULE}`).optional(),
    scheduledTime: z
      .string()
      .refine(
        accepts((t) => parseInstant('scheduledTime', t)),
        'must be an ISO 8601 instant with an offset',
      )
      .optional(),
    /**
     * An intraday refresh: today so far in the tenant's zone (of `scheduledTime` when given,
     * else of the execution's start), and yesterday too when the refresh before it fell on
     * yesterday; those days' partitions replaced, provisional until they end.
     */
    intraday: z.literal(true, { message: 'must be true (leave it out for a nightly run)' }).optional(),
    date: calendarDate.optional(),
    from: calendarDate.optional(),
    to: calendarDate.optional(),
    preset: z
      .string()
      .refine(
        (p) => (PRESET_NAMES as readonly string[]).includes(p),
        `must be one of ${PRESET_NAMES.join(', ')}`,
      )
      .optional(),
    reports: z.array(z.string().min(1).max(200)).min(1).max(100).optional(),
    filterId: z.string().refine(isGuid, 'must be a GUID').optional(),
    additionalConditions: z.array(condition).max(50).optional(),
    /**
     * Replace published partitions even with far fewer rows (an empty result included):
     * what the shrink guard would hold. For an operator who knows the service corrected them.
     */
    forceReplace: z.boolean().optional(),
    /** Set by the workflow itself when a long backfill continues in a new execution. */
    parentRunId: z.string().max(200).optional(),
    /**
     * The tenant's contact directories: `sync` them beside the reports (the default, but in a
     * continuation, which skips them), `skip` them, or sync `only` them (no report).
     */
    contacts: z.enum(CONTACTS_MODES, { message: `must be one of ${CONTACTS_MODES.join(', ')}` }).optional(),
  })
  .superRefine((input, ctx) => {
    if (input.contacts === 'only') {
      const reportMembers = ONLY_REFUSES.filter((m) => input[m] !== undefined);
      if (reportMembers.length > 0) {
        ctx.addIssue({
          code: 'custom',
          path: ['contacts'],
          message: `"only" syncs the contact directories alone: it takes no ${reportMembers.join(', ')}`,
        });
      }
      return;
    }
    const modes = [
      input.intraday === true && 'intraday',
      // A refresh's schedule gives its time: that is no nightly run.
      input.scheduledTime !== undefined && input.intraday !== true && 'scheduledTime',
      input.date !== undefined && 'date',
      (input.from !== undefined || input.to !== undefined) && 'from/to',
      input.preset !== undefined && 'preset',
    ].filter(Boolean);
    if (modes.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message:
          modes.length === 0
            ? 'needs one of scheduledTime, intraday, date, from and to, or preset'
            : `takes one of scheduledTime, intraday, date, from/to, preset; got ${modes.join(' and ')}`,
      });
    }
    if ((input.from === undefined) !== (input.to === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [input.from === undefined ? 'from' : 'to'],
        message: 'is required with from/to',
      });
    }
    if (input.from !== undefined && input.to !== undefined && input.to < input.from) {
      ctx.addIssue({
        code: 'custom',
        path: ['to'],
        message: `(${input.to}) must not be before from (${input.from})`,
      });
    }
  });

export type ExecutionInput = z.infer<typeof EXECUTION_INPUT_SCHEMA>;

/**
 * Whether an execution syncs the contact directories: by default (no `contacts`, as the
 * nightly schedule's input has none), with `contacts: "sync"` or `"only"`; not with
 * `"skip"`, never in a continuation (its first execution synced them), and in an intraday
 * refresh only with `"sync"`.
 */
export function syncsContacts(input: Pick<ExecutionInput, 'contacts' | 'parentRunId' | 'intraday'>): boolean {
  if (input.parentRunId !== undefined) return false;
  // A refresh every few minutes would read every directory whole each time: only when asked.
  if (input.intraday === true) return input.contacts === 'sync';
  return input.contacts !== 'skip';
}

/**
 * The largest execution input Plan accepts, as JSON text in UTF-8. Step Functions takes
 * inputs up to 256 KiB, but the input's filters travel in the state (to every job and the
 * continuation) beside the plan and the jobs' results, all within 256 KiB: an input this
 * size leaves them room. Filters that need more belong in a saved filter (filterId).
 */
export const MAX_EXECUTION_INPUT_BYTES = 32 * 1024;
/**
 * What the refusal of an input over MAX_EXECUTION_INPUT_BYTES says: the state machine tells
 * that failure by it (such an input's tenant is not copied into the state, which could not
 * hold it; lib/infra/export-workflow.ts).
 */
export const INPUT_TOO_LARGE_PHRASE = 'bytes of JSON exceed the';

/** Validates an execution input; the error names every wrong member and what is wrong with it. */
export function parseExecutionInput(raw: unknown): ExecutionInput {
  const bytes = Buffer.byteLength(JSON.stringify(raw) ?? '', 'utf8');
  if (bytes > MAX_EXECUTION_INPUT_BYTES) {
    throw new InvalidInputError(
      `Invalid execution input: ${bytes} ${INPUT_TOO_LARGE_PHRASE} ${MAX_EXECUTION_INPUT_BYTES} an execution takes (its filters travel in the state, limited to 256 KiB); use a saved filter (filterId) for long conditions`,
    );
  }
  const parsed = EXECUTION_INPUT_SCHEMA.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw new InvalidInputError(
    `Invalid execution input: ${describeIssues(parsed.error.issues, raw, 'input')}`,
  );
}

/** Each issue as `<member> <what is wrong> (got <value>)`, joined: the members named, scalars shown. */
export function describeIssues(
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
  raw: unknown,
  whole: string,
): string {
  return issues
    .map((issue) => {
      const where = issue.path.length > 0 ? issue.path.map(String).join('.') : whole;
      const value = valueAt(raw, issue.path);
      const shown = value === undefined || typeof value === 'object' ? '' : ` (got ${JSON.stringify(value)})`;
      return `${where} ${issue.message}${shown}`;
    })
    .join('; ');
}

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let v = raw;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/**
 * The tenant an input names, read leniently: its `tenant` when that is a tenant id, whatever
 * else is wrong with the input (a failure record of an invalid input still names its tenant).
 */
export function tenantOfRawInput(raw: unknown): string | undefined {
  const tenant = (raw as { tenant?: unknown } | null | undefined)?.tenant;
  return typeof tenant === 'string' && TENANT_ID_PATTERN.test(tenant) ? tenant : undefined;
}
