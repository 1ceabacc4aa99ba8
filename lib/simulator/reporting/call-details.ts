import type { Prng } from '../prng';
import type { CallShape } from './report-templates';

/**
 * The detail members of a `CallListWithDetails` row (see CALL_DETAIL_FIELD_NAMES): the
 * simulator's invention, not the spec's. Drawn from the call's own seeded sequence after
 * its docId, so they are the same for the same call, and the call's other members are
 * those of every other template.
 */

/** What the details depend on, besides the draws. */
interface DetailedCall extends Pick<CallShape, 'direction' | 'huntGroup' | 'ans'> {
  /** Seconds talked (0 when unanswered). */
  duration: number;
}

// Some need quoting or escaping downstream (comma, slash, quote); `0042` must stay a string.
const ACCOUNT_CODES = ['GEN-000', 'SALES-UK', 'SUPPORT', '0042', 'R&D, Lab 2', 'PROJ/2026-07', 'VIP "Gold"'];

const TRUNKS = [
  '{"id":"TR-01","name":"SIP London"}',
  '{"id":"TR-02","name":"SIP Manchester"}',
  '{"id":"TR-03","name":"ISDN30 backup"}',
];
const INTERNAL_TRUNK = '{"id":"TR-00","name":"Internal"}';

/** Outbound charge per started minute, in pence (national, mobile, international). */
const PENCE_PER_MINUTE = [2, 8, 15];
const CONNECTION_PENCE = 5;

/** Writes the detail members (each with its leading comma), drawing from `rng` in a fixed order. */
export function renderCallDetails(rng: Prng, call: DetailedCall): string {
  const accountCode = rng.pick(ACCOUNT_CODES);
  const queueDraw = rng.logNormal(call.ans ? 15 : 40, 0.7);
  const rate = rng.pick(PENCE_PER_MINUTE);
  const recordedDraw = rng.next();
  const trunk = rng.pick(TRUNKS);
  const queueSeconds = call.huntGroup ? Math.min(900, Math.round(queueDraw)) : 0;
  const minutes = Math.ceil(call.duration / 60);
  // Whole pence over 100: JSON prints the shortest form (12.5, 0.07), never 0.07000000000000001.
  const cost = call.direction === 'outbound' && call.ans ? (CONNECTION_PENCE + rate * minutes) / 100 : 0;
  const recorded = call.ans === 1 && recordedDraw < 0.6;
  const line = call.direction === 'internal' ? INTERNAL_TRUNK : trunk;
  return `,"accountCode":${JSON.stringify(accountCode)},"queueSeconds":${queueSeconds},"cost":${cost},"recorded":${recorded},"trunk":${line}`;
}
