import type { Agent } from './call-population';
import { type CallTally, emptyTally } from './call-rows';

/** The calls of one extension user in a window, summed (a `user-totals` row). */
export interface UserTotals {
  agent: Agent;
  tally: CallTally;
}

/** Adds one call's totals (a one-row tally) to the user's. */
export function addToUser(byUser: Map<string, UserTotals>, agent: Agent, call: CallTally): void {
  let entry = byUser.get(agent.extension);
  if (entry === undefined) {
    entry = { agent, tally: emptyTally() };
    byUser.set(agent.extension, entry);
  }
  addTally(entry.tally, call);
}

/** The users in extension order (the rows' order, `sortFields` userNum ascending). */
export function sortedUsers(byUser: Map<string, UserTotals>): UserTotals[] {
  return [...byUser.values()].sort((a, b) => a.agent.extension.localeCompare(b.agent.extension, 'en'));
}

/** A `user-totals` row as JSON (members in the order of USER_TOTAL_FIELD_NAMES). */
export function renderUserTotals({ agent, tally }: UserTotals): string {
  return `{"userName":${agent.nameJson},"userNum":"${agent.extension}","calls":${tally.rows},"ans":${tally.ans},"ref":${tally.ref},"lost":${tally.lost},"ring":${tally.ring},"duration":${tally.duration}}`;
}

/** The totals of several users (the result's summary over `user-totals` rows). */
export function sumOfUsers(users: readonly UserTotals[]): CallTally {
  const total = emptyTally();
  for (const { tally } of users) addTally(total, tally);
  return total;
}

function addTally(into: CallTally, from: Readonly<CallTally>): void {
  into.rows += from.rows;
  into.ans += from.ans;
  into.ref += from.ref;
  into.lost += from.lost;
  into.ring += from.ring;
  into.duration += from.duration;
}
