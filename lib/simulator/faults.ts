import { z } from 'zod';
import { SIM_ERROR_CODES, SimulatorError } from './errors';
import { GUID_PATTERN } from './prng';

/** Where a fault applies: a family of endpoints, or `*` for every one. */
const FAULT_ROUTES = [
  'token',
  'workspaces',
  'reports',
  'request',
  'status',
  'data',
  'directories',
  'items',
  '*',
] as const;
export type FaultRoute = (typeof FAULT_ROUTES)[number];

const times = z.number().int().positive().optional();
const route = z.enum(FAULT_ROUTES);

/** Schema of a fault rule (used by the admin endpoint; in-process callers get the same checks). */
const FAULT_RULE_SCHEMA = z.discriminatedUnion('kind', [
  z.object({
    route,
    kind: z.literal('status'),
    status: z.union([z.literal(429), z.literal(500), z.literal(502), z.literal(503), z.literal(408)]),
    retryAfterSeconds: z.number().int().nonnegative().optional(),
    times,
  }),
  z.object({ route, kind: z.literal('latency'), ms: z.number().int().nonnegative().max(600_000), times }),
  z.object({
    route: z.literal('data'),
    kind: z.literal('reset'),
    afterBytes: z.number().int().nonnegative(),
    times,
  }),
  z.object({
    route: z.literal('data'),
    kind: z.literal('truncate'),
    afterBytes: z.number().int().nonnegative(),
    times,
  }),
  z.object({
    route: z.literal('request'),
    kind: z.literal('report-fail'),
    statusMessage: z.string().optional(),
    times,
  }),
  z.object({ route: z.literal('request'), kind: z.literal('report-stuck'), times }),
  z.object({
    route: z.literal('data'),
    kind: z.literal('summary-mismatch'),
    reportId: z.string().regex(GUID_PATTERN).optional(),
    times,
  }),
  z.object({
    route: z.literal('data'),
    kind: z.literal('empty-result'),
    reportId: z.string().regex(GUID_PATTERN).optional(),
    times,
  }),
]);

/**
 * One injected fault. `times` (default 1) is how many matching calls it affects.
 * - status: answer that status at once (429 and 503 with Retry-After when given).
 * - latency: delay the call, then serve it normally.
 * - reset: destroy the socket after `afterBytes` bytes of the (uncompressed) data body.
 * - truncate: end the data body cleanly after `afterBytes` bytes.
 * - report-fail / report-stuck: the next report request(s) end `Failed` / never complete.
 * - summary-mismatch: the next result(s) (of `reportId` only, when given) carry a summary that
 *   disagrees with their rows (ans +1, duration +60); the rows are untouched.
 * - empty-result: the next result(s) (of `reportId` only, when given) have no rows at all, a
 *   totalCount of 0 and a zero summary: a service that lost the window's calls.
 */
export type FaultRule =
  | {
      route: FaultRoute;
      kind: 'status';
      status: 429 | 500 | 502 | 503 | 408;
      retryAfterSeconds?: number;
      times?: number;
    }
  | { route: FaultRoute; kind: 'latency'; ms: number; times?: number }
  | { route: 'data'; kind: 'reset'; afterBytes: number; times?: number }
  | { route: 'data'; kind: 'truncate'; afterBytes: number; times?: number }
  | { route: 'request'; kind: 'report-fail'; statusMessage?: string; times?: number }
  | { route: 'request'; kind: 'report-stuck'; times?: number }
  | { route: 'data'; kind: 'summary-mismatch'; reportId?: string; times?: number }
  | { route: 'data'; kind: 'empty-result'; reportId?: string; times?: number };

type FaultKind = FaultRule['kind'];

/** Thrown by {@link FaultController.inject} for a rule that does not fit the schema. */
export class InvalidFaultRuleError extends SimulatorError {
  override readonly name = 'InvalidFaultRuleError';

  constructor(message: string, options?: ErrorOptions) {
    super(SIM_ERROR_CODES.invalidFaultRule, message, options);
  }
}

interface ArmedRule {
  rule: FaultRule;
  remaining: number;
}

/**
 * Fault injection shared by the in-process API (`sim.faults`) and `/__admin/faults`.
 * Rules are consumed per matching call, oldest first.
 */
export class FaultController {
  readonly #armed: ArmedRule[] = [];
  readonly #expireTokens: () => void;

  constructor(expireTokens: () => void = () => {}) {
    this.#expireTokens = expireTokens;
  }

  /** Arms a rule for its next `times` matching calls. Throws InvalidFaultRuleError when malformed. */
  inject(rule: FaultRule): void {
    const parsed = FAULT_RULE_SCHEMA.safeParse(rule);
    if (!parsed.success) {
      throw new InvalidFaultRuleError(`invalid fault rule: ${z.prettifyError(parsed.error)}`, {
        cause: parsed.error,
      });
    }
    const armed = parsed.data as FaultRule;
    this.#armed.push({ rule: armed, remaining: armed.times ?? 1 });
  }

  /** Disarms every rule. */
  clear(): void {
    this.#armed.length = 0;
  }

  /** Makes every access token issued so far expire now (the next API call answers 401). */
  expireAccessTokens(): void {
    this.#expireTokens();
  }

  /** Rules still armed, with how many calls each has left. */
  pending(): { rule: FaultRule; remaining: number }[] {
    return this.#armed.map((a) => ({ rule: a.rule, remaining: a.remaining }));
  }

  /**
   * Consumes and returns the oldest armed rule of one of the kinds matching the route (and,
   * for a rule naming a `reportId`, the call's `reportId`).
   */
  take<K extends FaultKind>(
    route: Exclude<FaultRoute, '*'>,
    kinds: readonly K[],
    target: { reportId?: string } = {},
  ): Extract<FaultRule, { kind: K }> | undefined {
    const index = this.#armed.findIndex(
      (a) =>
        (a.rule.route === route || a.rule.route === '*') &&
        (kinds as readonly string[]).includes(a.rule.kind) &&
        (!('reportId' in a.rule) ||
          a.rule.reportId === undefined ||
          a.rule.reportId.toLowerCase() === target.reportId?.toLowerCase()),
    );
    if (index < 0) return undefined;
    const armed = this.#armed[index] as ArmedRule;
    armed.remaining--;
    if (armed.remaining <= 0) this.#armed.splice(index, 1);
    return armed.rule as Extract<FaultRule, { kind: K }>;
  }
}
