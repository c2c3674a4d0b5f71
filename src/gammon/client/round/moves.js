// @ts-check
// round/moves.js — the player's moves, read from what the server sent (the legal steps
// `legal`: {src: {die: dest}}, the reach `reach`: {src: {dest: dice}}): the longest move of a
// checker, the step auto bear-off plays, and why a checker cannot go somewhere. No DOM; the
// rules are the server's, these only read its answer.

import { t } from "../i18n.js";

/** @typedef {Record<string, Record<string, number>>} Legal */

/** The longest move in `reach` (dest -> {dice}): the destination using most dice, the
 *  furthest on a tie; its dice, or null when there is none.
 *  @param {Map<number, {dice: number[]}>} reach */
export function longestMove(reach) {
  /** @type {{dice: number[], key: number[]} | null} */
  let best = null;
  for (const [dest, r] of reach) {
    const key = [r.dice.length, -dest];
    if (!best || key[0] > best.key[0] || (key[0] === best.key[0] && key[1] > best.key[1])) best = { dice: r.dice, key };
  }
  return best ? best.dice : null;
}

/** The step auto bear-off plays: when every legal step bears a checker off (nothing is left
 *  to choose), the one with the highest die; else null. @param {Legal} legal */
export function bearOffStep(legal) {
  const entries = Object.entries(legal);
  if (!entries.length) return null;
  if (!entries.every(([, steps]) => Object.values(steps).every((dest) => dest === 0))) return null;
  let best = { src: 0, die: 0 };
  for (const [src, steps] of entries) {
    for (const die of Object.keys(steps)) if (Number(die) > best.die) best = { src: Number(src), die: Number(die) };
  }
  return best;
}

/** Why the checker on `src` cannot go to `dest` (null: anywhere), in the player's words.
 *  @param {{isPlayer: boolean, myTurn: boolean, phase: string | undefined, busy: boolean,
 *    legal: Legal}} now what the page holds @param {number} src @param {number | null} dest */
export function whyNot({ isPlayer, myTurn, phase, busy, legal }, src, dest) {
  if (!isPlayer) return t("move.spectator");
  if (!myTurn) return t("move.not_your_turn");
  if (phase === "before_roll") return t("move.roll_first");
  if (phase !== "moving") return t("move.not_now");
  if (busy) return t("move.wait");
  if (!Object.keys(legal).length) return t("move.no_moves");
  if (!legal[String(src)]) {
    if (legal["25"] && src !== 25) return t("move.bar_first");
    return t("move.checker_stuck");
  }
  if (dest === null) return "";
  if (dest === 0) return t("move.cannot_bear_off");
  if (dest === 25) return t("move.not_to_bar");
  if (dest > src) return t("move.backwards");
  return t("move.cannot_reach", { point: dest });
}

/** Whether the game `g` waits for the player in seat `seat`: to roll or move on their turn,
 *  or to answer the opponent's double or resignation (false for a spectator: no seat).
 *  @param {any} g @param {number | null} seat */
export function decides(g, seat) {
  if (!g || seat === null) return false;
  if (g.phase === "before_roll" || g.phase === "moving") return g.turn === seat;
  if (g.phase === "cube_offered" || g.phase === "resign_offered") return g.turn !== seat;
  return false;
}
