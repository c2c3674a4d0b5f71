// @ts-check
// movelist.js — what the match's events say, read for people: the move list in standard
// notation (numbered move pairs, `12) 64: 24/18 13/9   31: 8/5 6/5`, cube actions on their
// own lines) and the board's feedback (the last move, the last dice, the opening throws).
//
// Only bookkeeping of the server's events (PROTOCOL.md): nothing here decides a rule.

import { t } from "./i18n.js";
import { h } from "./ui.js";

/** A roll written higher die first: [3, 6] -> "63". */
export function diceText(roll) {
  const [a, b] = roll;
  return `${Math.max(a, b)}${Math.min(a, b)}`;
}

/** The dice of a roll, higher first (doubles four times when `four`). */
export function diceValues(roll, four = false) {
  const [a, b] = [Math.max(...roll), Math.min(...roll)];
  return a === b && four ? [a, a, a, a] : [a, b];
}

/** Whether the opening's winner rolled anew: the match's "winner rolls anew" rule (`anew`,
 *  from the match info) when known; otherwise, as for events without it, whether the roll
 *  is not the last throw (which misses a new roll equal to the opening dice, 1 time in 18).
 *  @param {{throws: number[][], roll: number[]}} opening
 *  @param {boolean | null} [anew] */
export function rolledAnew(opening, anew = null) {
  if (typeof anew === "boolean") return anew;
  const last = opening.throws[opening.throws.length - 1];
  return diceText(last) !== diceText(opening.roll);
}

// -- the board's feedback ------------------------------------------------------------------

/** What the board shows of the recent past, from the events:
 *    dice     the last roll {seat, values (higher first, doubles x4), left, opening}
 *             (`opening`: [die of seat 0, die of seat 1] when it is the opening's roll)
 *    last     the last move {seat, moves} (the mover's numbering) until the next roll
 *    opening  the last opening {first, throws, roll, anew} of the game in play
 *  `anew`: the match's "winner rolls anew" rule (null when not known). */
export function emptyFeedback() {
  return { dice: null, last: null, opening: null };
}

/** @param {boolean | null} [anew] */
export function reduceFeedback(fb, e, anew = null) {
  switch (e.type) {
    case "game_started":
      return emptyFeedback();
    case "opening_rolled":
      return { dice: null, last: null, opening: { first: e.first, throws: e.throws, roll: e.roll, anew: rolledAnew(e, anew) } };
    case "dice_rolled": {
      const values = diceValues(e.roll, true);
      const o = fb.opening;
      const opening = o && !fb.dice && !o.anew && e.player === o.first ? o.throws[o.throws.length - 1].slice() : null;
      return { ...fb, dice: { seat: e.player, values, left: values.slice(), opening }, last: { seat: e.player, moves: [], live: true } };
    }
    case "checker_moved": {
      const dice = fb.dice ? { ...fb.dice, left: removeOne(fb.dice.left, e.die) } : null;
      const moves = fb.last && fb.last.seat === e.player && fb.last.live ? fb.last.moves : [];
      return { ...fb, dice, last: { seat: e.player, moves: [...moves, e.move], live: true } };
    }
    case "step_undone": {
      const dice = fb.dice ? { ...fb.dice, left: [...fb.dice.left, e.die].sort((a, b) => b - a) } : null;
      const moves = (fb.last?.moves || []).slice();
      const i = moves.map((m) => `${m.from}/${m.to}`).lastIndexOf(`${e.move.from}/${e.move.to}`);
      if (i >= 0) moves.splice(i, 1);
      return { ...fb, dice, last: { seat: e.player, moves, live: true } };
    }
    case "turn_ended":
      return { ...fb, dice: fb.dice ? { ...fb.dice, left: [] } : null, last: { seat: e.player, moves: e.moves, live: false } };
    default:
      return fb;
  }
}

function removeOne(list, value) {
  const out = list.slice();
  const i = out.indexOf(value);
  if (i >= 0) out.splice(i, 1);
  return out;
}

/** @param {boolean | null} [anew] */
export function feedbackOf(events, anew = null) {
  let fb = emptyFeedback();
  for (const e of events) fb = reduceFeedback(fb, e, anew);
  return fb;
}

// -- the move list -------------------------------------------------------------------------

/** Rows of the move list from the events. `name(seat)` gives a player's name. Each row:
 *  {kind: "game" | "opening" | "moves" | "cube" | "note", text?, number?, cells?: [left,
 *  right] ({text, v} or null), v}. Player 0 is the left column, player 1 the right.
 *  `anew`: the match's "winner rolls anew" rule (null when not known). */
/** @typedef {{text: string, v: number}} MoveCell
 *  @typedef {{kind: "game" | "opening" | "moves" | "cube" | "note", v: number, text?: string,
 *             number?: number, cells?: (MoveCell | null)[], closed?: boolean}} MoveRow */

/** @param {import("./wire.js").EventView[]} events
 *  @param {(seat: number) => string} name
 *  @param {boolean | null} [anew]
 *  @returns {MoveRow[]} */
export function moveRows(events, name, anew = null) {
  /** @type {MoveRow[]} */
  const rows = [];
  let number = 0;
  /** @type {{kind: "moves", v: number, number: number, cells: (MoveCell | null)[], closed?: boolean} | null} */
  let pair = null; // the numbered row being filled
  /** @type {(number[] | null)[]} */
  const roll = [null, null];
  /** @type {MoveRow | null} */
  let cube = null; // the cube row being filled (offer, then the answer)
  for (const e of events) {
    switch (e.type) {
      case "game_started":
        rows.push({ kind: "game", v: e.v, text: e.crawford ? t("moves.game_crawford", { number: e.number }) : t("moves.game", { number: e.number }) });
        number = 0;
        pair = null;
        cube = null;
        break;
      case "opening_rolled": {
        const throws = e.throws.map(([a, b]) => (a === b ? t("moves.tie", { dice: `${a}–${b}` }) : `${a}–${b}`)).join(", ");
        const params = { a: name(0), b: name(1), throws, name: name(e.first), dice: diceText(e.roll) };
        rows.push({ kind: "opening", v: e.v, text: rolledAnew(e, anew) ? t("moves.opening_anew", params) : t("moves.opening", params) });
        break;
      }
      case "dice_rolled":
        roll[e.player] = e.roll;
        break;
      case "turn_ended": {
        const play = e.play; // in the core's notation (PROTOCOL.md, Events)
        const dice = roll[e.player] ? `${diceText(roll[e.player])}: ` : "";
        const cell = { text: `${dice}${play || t("moves.cannot_move")}`, v: e.v };
        const fills = e.player === 1 && pair !== null && !pair.cells[1];
        if (!fills || !pair || pair.closed) {
          // a new numbered pair; after a cube line, player 1's answer to player 0's move
          // goes on a row of its own with the same number
          if (!fills) number += 1;
          pair = { kind: "moves", number, cells: [null, null], v: e.v };
          rows.push(pair);
        }
        pair.cells[e.player] = cell;
        pair.v = e.v;
        cube = null;
        break;
      }
      case "cube_offered":
        cube = { kind: "cube", v: e.v, text: t("moves.doubles", { name: name(e.player), value: e.value }) };
        rows.push(cube);
        if (pair) pair.closed = true;
        break;
      case "cube_taken":
      case "cube_beavered":
      case "cube_dropped": {
        const key = { cube_taken: "moves.takes", cube_beavered: "moves.beavers", cube_dropped: "moves.drops" }[e.type];
        const text = t(key, { name: name(e.player), value: e.value });
        if (cube) { cube.text += ` · ${text}`; cube.v = e.v; }
        else rows.push({ kind: "cube", v: e.v, text });
        cube = null;
        break;
      }
      case "resign_offered":
        rows.push({ kind: "note", v: e.v, text: t("log.resigns", { name: name(e.player), level: t(LEVELS[e.level]) }) });
        if (pair) pair.closed = true;
        break;
      case "resign_accepted":
        rows.push({ kind: "note", v: e.v, text: t("log.accepts", { name: name(e.player) }) });
        break;
      case "resign_rejected":
        rows.push({ kind: "note", v: e.v, text: t("log.rejects", { name: name(e.player) }) });
        break;
      case "game_ended":
        rows.push({ kind: "note", v: e.v, text: t("log.game_won", { name: name(e.winner), count: e.points, kind: t(`end.${e.kind}`) }) });
        break;
      case "match_ended":
        rows.push({ kind: "note", v: e.v, text: t("log.match_won", { name: name(e.winner), score: e.score.join("–") }) });
        break;
      default:
        break;
    }
  }
  return rows;
}

// -- sentences (the screen reader's announcements, the replay's captions) -----------------

const LEVELS = ["", "resign.single", "resign.gammon", "resign.backgammon"];

/** One event in words, or null when it says nothing new (`prev`: the event before it;
 *  `anew`: the match's "winner rolls anew" rule, null when not known).
 *  @param {import("./wire.js").EventView} e
 *  @param {import("./wire.js").EventView | undefined} prev
 *  @param {(seat: number) => string} name
 *  @param {boolean | null} [anew]
 *  @returns {string | null} */
export function describeEvent(e, prev, name, anew = null) {
  const dice = (roll) => diceValues(roll).join("-");
  switch (e.type) {
    case "game_started": return e.crawford ? t("log.game_started_crawford", { number: e.number }) : t("log.game_started", { number: e.number });
    case "opening_rolled": {
      const parts = e.throws.map(([a, b]) => t(a === b ? "log.opening_tie" : "log.opening_throw", { a: name(0), b: name(1), d0: a, d1: b }));
      parts.push(t("log.opening_first", { name: name(e.first) }));
      return parts.join(" ");
    }
    case "dice_rolled":
      // the opening's two dice are the first roll, said once; a new roll is said
      if (prev?.type === "opening_rolled" && !rolledAnew(prev, anew)) return null;
      return t("log.rolled", { name: name(e.player), dice: dice(e.roll) });
    case "turn_ended": return e.moves.length ? t("log.played", { name: name(e.player), moves: e.play }) : null;
    case "no_legal_move": return t("log.no_move", { name: name(e.player), dice: dice(e.roll) });
    case "cube_offered": return t("log.doubles", { name: name(e.player), value: e.value });
    case "cube_taken": return t("log.takes", { name: name(e.player), value: e.value });
    case "cube_beavered": return t("log.beavers", { name: name(e.player), value: e.value });
    case "cube_dropped": return t("log.drops", { name: name(e.player) });
    case "resign_offered": return t("log.resigns", { name: name(e.player), level: t(LEVELS[e.level]) });
    case "resign_accepted": return t("log.accepts", { name: name(e.player) });
    case "resign_rejected": return t("log.rejects", { name: name(e.player) });
    case "game_ended": return t("log.game_won", { name: name(e.winner), count: e.points, kind: t(`end.${e.kind}`) });
    case "match_ended": return t("log.match_won", { name: name(e.winner), score: e.score.join("–") });
    default: return null;
  }
}

// -- the list on the page --------------------------------------------------------------------

/** Fill `box` with the move list of `rows`. `href(v)` gives a move's link (to the replay at
 *  that move); `onPick(v, event)`, when given, is called on a click instead of following it;
 *  `target` is the links' target ("_blank" from a live board). */
/** @param {HTMLElement} box
 *  @param {MoveRow[]} rows
 *  @param {{href: (v: number) => string, onPick?: ((v: number, event: Event) => void) | null,
 *           target?: string | null}} options */
export function renderMoveList(box, rows, { href, onPick = null, target = null }) {
  const cell = (c) => {
    if (!c) return h("span", { class: "ml-cell empty" });
    const a = h("a", { class: "ml-cell", href: href(c.v), "data-v": c.v, target, rel: target ? "noopener" : null }, c.text);
    if (onPick) a.addEventListener("click", (event) => { event.preventDefault(); onPick(c.v, event); });
    return a;
  };
  box.replaceChildren(...rows.map((r) => {
    if (r.kind === "moves") {
      return h("div", { class: "ml-row ml-moves", "data-v": r.v },
        h("span", { class: "ml-num" }, `${r.number})`), cell(r.cells?.[0]), cell(r.cells?.[1]));
    }
    return h("div", { class: `ml-row ml-line ml-${r.kind}`, "data-v": r.v }, r.text);
  }));
}

/** Mark the move at version `v` (the last one at or before it) as the current one. */
export function markCurrent(box, v) {
  let current = null;
  for (const a of box.querySelectorAll(".ml-cell[data-v]")) {
    a.classList.remove("current");
    a.removeAttribute("aria-current");
    if (Number(a.dataset.v) <= v) current = a;
  }
  if (current) {
    current.classList.add("current");
    current.setAttribute("aria-current", "step");
    const top = current.offsetTop - box.offsetTop;
    if (top < box.scrollTop || top + current.offsetHeight > box.scrollTop + box.clientHeight) {
      box.scrollTop = Math.max(0, top - box.clientHeight / 2);
    }
  }
  return current;
}
