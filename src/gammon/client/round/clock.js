// @ts-check
// round/clock.js — a side's clock as it reads now, from the server's last reading (the
// feed's `clock`, taken at `clockAt`) and the time since. No DOM.

/** @typedef {{action_left: number, bank_left: number, expired?: boolean, low?: boolean}} ClockSide */
/** @typedef {{kind: string, running: number | null, sides: ClockSide[], low_at: number}} Clock */
/** @typedef {{a: number, b: number, running: boolean, low: boolean, active: "a" | "b" | null,
 *    italian: boolean}} ClockReading */

/** Polish clock: the move and game clocks run together, so while a side's move runs its game
 *  clock minus its move clock stays the same: the game time a move time-out leaves. Updates
 *  `lastReading` (one entry a seat) from a fresh reading.
 *  @param {Clock | null} clock @param {(number | null)[]} lastReading */
export function notePolish(clock, lastReading) {
  if (!clock || clock.kind !== "polish" || clock.running === null || clock.running === undefined) return;
  const side = clock.sides[clock.running];
  if (!side.expired) lastReading[clock.running] = Math.max(0, side.bank_left - side.action_left);
}

/** Seat `seat`'s clock `elapsed` seconds after the reading: `a` the move (Polish) or delay
 *  (Italian) clock, `b` the game clock or reserve; null without a clock.
 *  @param {Clock | null} clock @param {number} seat @param {number} elapsed
 *  @param {(number | null)[]} lastReading @returns {ClockReading | null} */
export function clockReading(clock, seat, elapsed, lastReading) {
  if (!clock) return null;
  const side = clock.sides[seat];
  const running = clock.running === seat && !side.expired;
  const spent = running ? elapsed : 0;
  const italian = clock.kind !== "polish";
  let a;
  let b;
  /** @type {"a" | "b" | null} */
  let active;
  if (italian) {
    a = Math.max(0, side.action_left - spent);
    const over = Math.max(0, spent - side.action_left);
    b = Math.max(0, side.bank_left - over);
    active = running ? (a > 0 ? "a" : "b") : null;
  } else {
    a = Math.max(0, side.action_left - spent);
    b = Math.max(0, side.bank_left - spent);
    active = running ? "a" : null;
    // ran out of move time, the time-out not yet in: the game clock keeps what it had when
    // the move began, less the move clock (once the time-out is in, the server says so)
    const kept = lastReading[seat];
    if (side.expired && clock.running === seat && kept !== null && kept !== undefined) b = kept;
  }
  const lowAt = clock.low_at;
  const low = running && (!!side.low || (italian ? a === 0 && b <= lowAt : Math.min(a, b) <= lowAt));
  return { a, b, running, low, active, italian };
}
