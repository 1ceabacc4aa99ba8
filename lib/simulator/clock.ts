/** Time source of the local service, injectable so tests can move time (token expiry, idle expiry). */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const SYSTEM_CLOCK: Clock = { now: () => Date.now() };

/** A clock that only moves when told to; starts at the system time unless given a start. */
export class ManualClock implements Clock {
  #now: number;

  constructor(startMs: number = Date.now()) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  advance(ms: number): void {
    this.#now += ms;
  }

  set(ms: number): void {
    this.#now = ms;
  }
}
