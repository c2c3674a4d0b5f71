// @ts-check
// round/view/board.js — the live board's state for board.js's BoardView, a pure function of
// the controller: the board (a frame's while frames play), the dice, the cube, the players
// and their clocks, what is lit (the checkers that can move, where the picked one can go).

import { t } from "../../i18n.js";
import { diceValues } from "../../movelist.js";
import { INITIAL } from "../../rules.js";

/** @typedef {import("../ctrl.js").RoundCtrl} RoundCtrl */
/** @typedef {import("../frames.js").LiveFrame} LiveFrame */

/** Seat `seat`'s clock as the board draws it (labelled), or null without a clock.
 *  @param {RoundCtrl} ctrl @param {number} seat @param {number} now */
export function clockState(ctrl, seat, now) {
  const c = ctrl.clockOf(seat, now);
  if (!c) return null;
  return { ...c, aLabel: c.italian ? t("clock.delay") : t("clock.move"), bLabel: c.italian ? t("clock.reserve") : t("clock.game") };
}

/** The board state of the controller (board.js's `render` reads it).
 *  @param {RoundCtrl} ctrl @param {{compact: boolean, now?: number}} how */
export function boardState(ctrl, { compact, now = performance.now() }) {
  const g = ctrl.game;
  const info = ctrl.info;
  const o = ctrl.options();
  const frame = ctrl.queue.frame;
  const fb = frame ? frame.fb : ctrl.feedback();
  const moving = ctrl.moving;
  /** @type {{sources: number[], targets: number[], selected: number | null, cursor: number | null}} */
  const highlight = { sources: [], targets: [], selected: ctrl.selected, cursor: ctrl.cursor };
  if (moving) {
    highlight.sources = ctrl.sources();
    const focus = ctrl.dragSrc ?? ctrl.selected ?? ctrl.hover;
    if (focus !== null && focus !== undefined) highlight.targets = [...ctrl.reachOf(focus).keys()];
  }
  // the last move of either side stays marked until the next roll (not while one's own move
  // is in the making); a hint's play previewed instead
  const last = ctrl.hints.shown?.preview || (moving ? null : fb.last);
  const cube = g ? {
    value: g.cube.value, owner: g.cube.owner, enabled: g.cube.enabled,
    offered: g.phase === "cube_offered" ? { by: g.turn, value: g.cube.value * 2 } : null,
  } : null;
  const players = [0, 1].map((seat) => {
    const s = info?.seats?.[seat];
    return {
      name: s?.name ?? (info?.status === "open" && seat === 1 ? t("match.waiting_seat") : "—"),
      rating: s && s.kind === "user" ? s.rating : null,
      bot: !!s?.bot, // the server's computer or a Bot API account: marked BOT
      score: g ? g.score[seat] : null,
      clock: clockState(ctrl, seat, now),
    };
  });
  const length = g?.length ?? info?.length;
  let turn = null;
  if (g && g.phase !== "match_over") turn = g.phase === "cube_offered" || g.phase === "resign_offered" ? 1 - g.turn : g.turn;
  return {
    board: frame?.board || g?.board || INITIAL,
    bottom: ctrl.isPlayer ? ctrl.you : ctrl.spectatorBottom,
    flipped: !!o.flip, numbers: o.numbering !== false, quality: o.graphics,
    dice: diceState(ctrl, fb, frame), last, roll: ctrl.canRoll(), cube, players, turn,
    match: { length, crawford: !!g?.crawford, label: length ? t("board.length", { count: length }) : length === 0 ? t("board.money") : "" },
    highlight, compact,
  };
}

/** The dice to draw: the roll in play (the server's dice left; the opening's one die a
 *  side), else the last roll dimmed until the next one; while frames play, theirs.
 *  @param {RoundCtrl} ctrl @param {any} fb the feedback shown @param {LiveFrame | null} frame */
export function diceState(ctrl, fb, frame) {
  const g = ctrl.game;
  if (frame?.throw) {
    const { dice, tie } = frame.throw;
    return { split: dice, left: dice.slice(), seat: dice[0] > dice[1] ? 0 : 1, tie };
  }
  const d = fb.dice;
  if (frame) {
    if (!d) return null;
    return d.opening ? { split: d.opening, left: d.left, seat: d.seat } : { values: d.values, left: d.left, seat: d.seat };
  }
  if (g?.dice && g.phase === "moving") {
    const left = (g.dice_left || []).slice();
    const confirmable = ctrl.canConfirm();
    const opening = d && d.opening && d.seat === g.turn && diceValues(g.dice).join() === d.values.join() ? d.opening : null;
    if (opening) return { split: opening, left, seat: g.turn, confirmable };
    return { values: diceValues(g.dice, true), left, seat: g.turn, confirmable };
  }
  if (!d) return null;
  return d.opening ? { split: d.opening, left: [], seat: d.seat, previous: true } : { values: d.values, left: [], seat: d.seat, previous: true };
}

/** The clocks as they read `now`, drawn on the board's player strips; whether the player's
 *  own clock runs low. @param {{drawStrips: (state: any) => void}} view
 *  @param {ReturnType<typeof boardState>} state the board state drawn last
 *  @param {RoundCtrl} ctrl @param {number} now */
export function drawClocks(view, state, ctrl, now) {
  for (const seat of [0, 1]) state.players[seat].clock = clockState(ctrl, seat, now);
  view.drawStrips(state);
  return ctrl.isPlayer ? !!state.players[/** @type {number} */ (ctrl.you)].clock?.low : false;
}
