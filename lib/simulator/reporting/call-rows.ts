import { formatGuid, type Prng } from '../prng';
import { renderCallDetails } from './call-details';
import type { Agent, CallPopulation, ExternalParty, HuntGroup } from './call-population';
import type { CallShape } from './report-templates';

/**
 * Opaque integers of the rows (the spec does not give their meaning); the simulator's
 * own reading, documented in lib/simulator/README.md.
 */
export const CALL_TYPE = { external: 1, huntGroup: 2, internal: 3 } as const;
export const CALL_DIRECTION = { inbound: 1, outbound: 2, internal: 3 } as const;

/** Totals of the emitted rows, i.e. the result's summary entry. */
export interface CallTally {
  rows: number;
  ans: number;
  ref: number;
  lost: number;
  ring: number;
  duration: number;
}

export function emptyTally(): CallTally {
  return { rows: 0, ans: 0, ref: 0, lost: 0, ring: 0, duration: 0 };
}

/**
 * One call in two steps over one seeded sequence: {@link draft} makes the draws that
 * decide who called whom and how it ended (enough for a report template to keep or drop
 * the call, so counting never writes rows); {@link render} continues the same sequence
 * for ring, duration and docId (and, when asked, the detail members) and writes the row.
 * One instance is reused for every call.
 */
export class CallDraft implements CallShape {
  direction: CallShape['direction'] = 'inbound';
  huntGroup = false;
  user = false;
  ans: 0 | 1 = 0;
  ref: 0 | 1 = 0;
  lost: 0 | 1 = 0;
  #id: [number, number, number, number] = [0, 0, 0, 0];
  #party: ExternalParty | undefined;
  #group: HuntGroup | undefined;
  #agent: Agent | undefined;
  #other: Agent | undefined;
  #externalNumber: string | undefined;

  /** Draws the call's parties and outcome from `rng`, already seeded for this call. */
  draft(rng: Prng, population: CallPopulation): this {
    const { agents, huntGroups, externals } = population;
    this.#id = [rng.nextUint32(), rng.nextUint32(), rng.nextUint32(), rng.nextUint32()];
    this.ref = 0;
    this.#externalNumber = undefined;
    const kind = rng.next();
    if (kind < 0.62) {
      this.direction = 'inbound';
      this.#party = rng.pick(externals);
      const group = rng.next() < 0.75 ? rng.pick(huntGroups) : undefined;
      this.#group = group;
      this.#agent = agents[group ? rng.pick(group.members) : rng.int(agents.length)] ?? agents[0];
      const outcome = rng.next();
      this.ans = outcome < (group ? 0.78 : 0.85) ? 1 : 0;
      this.ref = !this.ans && outcome > 0.95 ? 1 : 0;
      // A lost hunt-group call reached nobody; a direct call names the user it rang.
      this.user = this.#agent !== undefined && (this.ans === 1 || !group);
    } else if (kind < 0.9) {
      this.direction = 'outbound';
      this.#group = undefined;
      this.#agent = rng.pick(agents);
      this.#party = rng.pick(externals);
      this.ans = rng.next() < 0.7 ? 1 : 0;
      this.user = true;
    } else {
      this.direction = 'internal';
      this.#group = undefined;
      const caller = rng.int(agents.length);
      const callee = (caller + 1 + rng.int(agents.length - 1)) % agents.length;
      this.#agent = agents[caller] ?? (agents[0] as Agent);
      this.#other = agents[callee] ?? this.#agent;
      this.ans = rng.next() < 0.85 ? 1 : 0;
      this.user = true;
    }
    this.huntGroup = this.#group !== undefined;
    this.lost = this.ans || this.ref ? 0 : 1;
    return this;
  }

  /** The extension user the row names in userName/userNum (undefined when it names none). */
  get userAgent(): Agent | undefined {
    return this.user ? this.#agent : undefined;
  }

  /** The external party's number in the call population (undefined for an internal call). */
  get partyNumber(): string | undefined {
    return this.direction === 'internal' ? undefined : this.#party?.number;
  }

  /** What `cli` holds for the external party instead of its population number (until the next draft). */
  writeExternalNumber(number: string): void {
    this.#externalNumber = number;
  }

  /**
   * Writes the drafted call as a JSON row (same `rng`, right after {@link draft}) and adds it
   * to `tally`. With `details`, the detail members of `CallListWithDetails` follow docId.
   */
  render(rng: Prng, start: string, tally: CallTally, details = false): string {
    const { ans, ref, lost } = this;
    const agent = this.#agent as Agent;
    let s = `{"connId":"${formatGuid(...this.#id)}","start":"${start}"`;
    let callType: number;
    let callDir: number;
    let ring: number;
    let duration = 0;
    let tail = '';
    if (this.direction === 'inbound') {
      const caller = this.#party as ExternalParty;
      const group = this.#group;
      callType = group ? CALL_TYPE.huntGroup : CALL_TYPE.external;
      callDir = CALL_DIRECTION.inbound;
      ring = ref ? rng.int(6) : Math.min(180, Math.round(rng.logNormal(ans ? 8 : 22, 0.6)));
      if (ans) duration = Math.min(7200, Math.max(1, Math.round(rng.logNormal(150, 0.9))));
      if (this.user) s += `,"userName":${agent.nameJson},"userNum":"${agent.extension}"`;
      s += `,"cli":"${this.#externalNumber ?? caller.number}"`;
      if (caller.nameJson) s += `,"cliName":${caller.nameJson}`;
      if (group) s += `,"hgNum":"${group.number}","hgName":${group.nameJson}`;
      if (ans) tail = `,"calledUserNum":"${agent.extension}","calledUserName":${agent.nameJson}`;
    } else if (this.direction === 'outbound') {
      const callee = this.#party as ExternalParty;
      callType = CALL_TYPE.external;
      callDir = CALL_DIRECTION.outbound;
      ring = Math.min(120, Math.round(rng.logNormal(12, 0.5)));
      if (ans) duration = Math.min(7200, Math.max(1, Math.round(rng.logNormal(200, 0.8))));
      s += `,"userName":${agent.nameJson},"userNum":"${agent.extension}","cli":"${this.#externalNumber ?? callee.number}"`;
      if (callee.nameJson) s += `,"cliName":${callee.nameJson}`;
      tail = `,"callUserName":${agent.nameJson},"callUserNum":"${agent.extension}"`;
    } else {
      const to = this.#other as Agent;
      callType = CALL_TYPE.internal;
      callDir = CALL_DIRECTION.internal;
      ring = Math.min(60, Math.round(rng.logNormal(6, 0.5)));
      if (ans) duration = Math.min(3600, Math.max(1, Math.round(rng.logNormal(90, 0.8))));
      s += `,"userName":${agent.nameJson},"userNum":"${agent.extension}","cli":"${agent.extension}","cliName":${agent.nameJson}`;
      tail = ans ? `,"calledUserNum":"${to.extension}","calledUserName":${to.nameJson}` : '';
      tail += `,"callUserName":${agent.nameJson},"callUserNum":"${agent.extension}"`;
    }
    tally.rows++;
    tally.ans += ans;
    tally.ref += ref;
    tally.lost += lost;
    tally.ring += ring;
    tally.duration += duration;
    const row = `${s},"callType":${callType},"callDir":${callDir},"ans":${ans},"ref":${ref},"lost":${lost},"ring":${ring},"duration":${duration}${tail},"docId":"${rng.guid()}"`;
    if (!details) return `${row}}`;
    return `${row}${renderCallDetails(rng, { direction: this.direction, huntGroup: this.huntGroup, ans, duration })}}`;
  }
}
