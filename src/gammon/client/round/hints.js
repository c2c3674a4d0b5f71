// @ts-check
// round/hints.js — what a hint asks the server (practice against the computer): the ranked
// plays of the roll while moving, the cube decision before it, each at the game's GNU
// Backgammon Match ID as the server sends it (the game view's `match_id`); the hint's part
// of the controller (HintCtrl). No DOM.

import { t } from "../i18n.js";

/** A hint's look-ahead (as `gammon hint --plies`) and how many of its plays are listed. */
export const HINT_PLIES = 2;
export const HINT_PLAYS = 5;

/** @typedef {import("../rules.js").Move} Move */
/** @typedef {{kind: "undo", key: "undo"} | {kind: "plays" | "cube", key: string, path: string,
 *    body: Record<string, unknown>}} HintRequest */

/** Hints are for practice: only in an unrated match without a clock against the computer
 *  (the server refuses them for a position of a rated match in play: 403 rated_match_live).
 *  @param {any} info the match info */
export function hintAllowed(info) {
  return !!info && info.bot !== null && info.bot !== undefined && (info.clock ?? "none") === "none" && !info.rated;
}

/** What a hint asks the server for game `g` on the player's turn: the ranked plays of the
 *  roll while moving (`undo` when the turn's start is not known: after a reload mid-move);
 *  before the roll, the cube decision (POST /api/eval with the game's Match ID), or
 *  only the chances when the game has no cube to turn; null in any other phase.
 *  @param {import("../wire.js").GameView} g @param {import("../wire.js").InfoView} info
 *  @param {{position_id: string, dice: string} | null} turnStart the position the turn started from
 *  @returns {HintRequest | null} */
export function hintRequestOf(g, info, turnStart) {
  if (g.phase === "moving") {
    if (!turnStart) return { kind: "undo", key: "undo" };
    const { position_id, dice } = turnStart;
    /** @type {Record<string, unknown>} */
    const body = { position_id, dice, plies: HINT_PLIES };
    // the plays valued at the score and cube
    if ((g.length || g.cube?.enabled) && g.match_id) body.match_id = g.match_id;
    return { kind: "plays", key: `plays:${g.game}:${position_id}:${dice}`, path: "/api/hint", body };
  }
  if (g.phase === "before_roll") {
    /** @type {Record<string, unknown>} */
    const body = { position_id: g.position_id, plies: HINT_PLIES };
    if (g.cube?.enabled && g.match_id) {
      body.match_id = g.match_id;
      body.beavers = !!info.beavers;
    }
    return { kind: "cube", key: `cube:${g.game}:${g.position_id}:${body.match_id || ""}`, path: "/api/eval", body };
  }
  return null;
}

/** A hint on screen: its request's key and kind; pending, or its answer or error; the play
 *  drawn on the board (`preview`).
 *  @typedef {{key: string, kind: string, pending?: boolean, answer?: any, error?: string | null,
 *    preview?: {seat: number, moves: Move[]} | null}} HintShown */

/** The hint of the match page's controller: the position the turn started from, the hint on
 *  screen, and asking for one. */
export class HintCtrl {
  /** @param {import("./ctrl.js").RoundCtrl} round */
  constructor(round) {
    this.round = round;
    /** @type {{position_id: string, dice: string} | null} */
    this.turnStart = null;
    /** @type {HintShown | null} */
    this.shown = null;
  }

  allowed() {
    return hintAllowed(this.round.info);
  }

  /** The position the turn started from (a hint ranks whole plays from there), noted when
   *  the dice are in and no checker has moved yet; forgotten once the turn is over. */
  noteTurnStart() {
    const round = this.round;
    const g = round.game;
    if (!g || g.phase !== "moving" || !round.myTurn || !g.dice) { this.turnStart = null; return; }
    const total = g.dice[0] === g.dice[1] ? 4 : 2;
    if ((g.dice_left || []).length === total) this.turnStart = { position_id: g.position_id, dice: g.dice.join("") };
  }

  /** What a hint asks the server now, or null. @returns {HintRequest | null} */
  request() {
    const round = this.round;
    if (!this.allowed() || !round.isPlayer || !round.isLive() || !round.myTurn || round.animating) return null;
    return hintRequestOf(round.game, round.info, this.turnStart);
  }

  /** Ask the server for the hint of the decision on the board (the Hint button). */
  async ask() {
    const round = this.round;
    const request = this.request();
    if (!request || this.shown?.pending) return;
    if (request.kind === "undo") {
      round.setMessage(t("hint.undo_first"), true);
      round.changed();
      return;
    }
    if (this.shown?.key === request.key && !this.shown.error) return; // on screen already
    this.shown = { key: request.key, kind: request.kind, pending: true };
    round.changed();
    let answer = null;
    let error = null;
    try {
      answer = await round.api("POST", request.path, request.body);
    } catch (err) {
      const e = /** @type {{code?: string, message: string}} */ (err);
      error = e.code === "rated_match_live" ? t("hint.refused_rated") : t("hint.failed", { message: e.message });
    }
    if (this.shown?.key !== request.key) return; // the game moved on meanwhile
    this.shown = { key: request.key, kind: request.kind, answer, error, preview: null };
    round.changed();
  }

  /** Draw one of the hint's plays on the board. @param {{seat: number, moves: Move[]}} preview */
  preview(preview) {
    if (!this.shown || this.shown.preview === preview) return;
    this.shown.preview = preview;
    this.round.changed();
  }

  /** The player moved a checker: the board moved on from the play drawn. */
  moved() {
    if (this.shown?.preview) this.shown = { ...this.shown, preview: null };
  }

  /** A hint stays while its decision is the one on the board (a play's hint for the whole
   *  turn, while checkers are moved); then it goes. */
  dropStale() {
    if (this.shown && this.request()?.key !== this.shown.key) this.shown = null;
  }

  close() {
    this.shown = null;
    this.round.changed();
  }
}
