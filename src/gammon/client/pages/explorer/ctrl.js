// @ts-check
// pages/explorer/ctrl.js — the position explorer's controller, no DOM (as the lobby's
// pages/lobby/ctrl.js): a position pasted (a Position ID, with its Match ID, or an XGID; the
// server reads it), the dice and the depth chosen, every play of the roll ranked by the
// engine (POST /api/hint) beside how often the site's players chose each and how its games
// ended, one play previewed on the board, and the best plays rolled out on request: followed
// as the games are played, cancellable. The page (pages/explorer.js) draws
// it when it says what changed.

import { t } from "../../i18n.js";
import { asking } from "../asking.js";

/** @typedef {import("../../round/types.js").Api} Api */
/** @typedef {import("../../wire.js").ExplorerPositionView} ExplorerPositionView */
/** @typedef {import("../../wire.js").RankedPlayView} RankedPlayView */
/** @typedef {import("../../wire.js").RolloutView} RolloutView */
/** @typedef {import("../../wire.js").ChoiceView} ChoiceView */

/** How often a running rollout is read (ms). */
export const POLL_MS = 500;

/** What the controller needs of the page around it: the server, a redraw, and a timer
 *  (`later(fn, ms)` calls `fn` once after `ms`, and gives back what stops it).
 *  @typedef {{api: Api, changed: () => void, later: (fn: () => void, ms: number) => () => void}} ExplorerDeps */

export class ExplorerCtrl {
  /** @param {ExplorerDeps} deps */
  constructor(deps) {
    this.deps = deps;
    /** @type {ExplorerPositionView | null} the position explored */ this.position = null;
    /** @type {number[]} the dice, high first */ this.dice = [3, 1];
    this.plies = 1;
    /** @type {RankedPlayView[]} the plays of the roll, best first */ this.plays = [];
    /** @type {Map<string, ChoiceView>} how the site's players played the roll, by play */
    this.choices = new Map();
    /** @type {number} the play previewed on the board (-1 none) */ this.selected = -1;
    /** @type {RolloutView | null} the last rollout asked */ this.rollout = null;
    /** @type {string} */ this.error = "";
    this.busy = false;
    /** @type {(() => void) | null} stops the next reading of the rollout */
    this.stopPolling = null;
  }

  /** Read a pasted position ("" the start); its dice, when it has some, become the dice.
   *  @param {string} text */
  async load(text) {
    await this.work(async () => {
      const position = await this.deps.api("POST", "/api/explorer/position", { text });
      this.position = position;
      if (position.dice) this.dice = position.dice.slice();
      this.plays = [];
      this.selected = -1;
    });
    if (this.position) await this.rank();
  }

  /** @param {number} a @param {number} b */
  setDice(a, b) {
    this.dice = [Math.max(a, b), Math.min(a, b)];
    return this.rank();
  }

  /** @param {number} plies */
  setPlies(plies) {
    this.plies = plies;
    return this.rank();
  }

  /** Every play of the roll, ranked at the depth chosen (at the position's score). */
  async rank() {
    const p = this.position;
    if (!p) return;
    /** @type {Record<string, unknown>} */
    const body = { position_id: p.position_id, dice: this.dice.join(""), plies: this.plies };
    if (p.match_id) body.match_id = p.match_id;
    const query = `position_id=${encodeURIComponent(p.position_id)}&dice=${this.dice.join("")}`;
    await this.work(async () => {
      const [hint, choices] = await Promise.all([this.deps.api("POST", "/api/hint", body),
        this.deps.api("GET", `/api/explorer/choices?${query}`)]);
      this.plays = hint.plays;
      this.choices = new Map(choices.map((/** @type {ChoiceView} */ c) => [c.play, c]));
      this.selected = this.plays.length ? 0 : -1;
    });
  }

  /** Preview play `index` on the board. @param {number} index */
  select(index) {
    this.selected = index >= 0 && index < this.plays.length ? index : -1;
    this.deps.changed();
  }

  /** The play previewed, as the board marks a move. */
  get preview() {
    const play = this.plays[this.selected];
    return play ? { seat: 0, moves: play.moves, label: play.play } : null;
  }

  /** What a play loses to the best (0 for the best). @param {RankedPlayView} play */
  behind(play) {
    return (this.plays[0]?.equity ?? 0) - play.equity;
  }

  /** Roll out the best `count` plays (by default 1,296 games each, to the end: a few seconds
   *  on the server). @param {{count?: number, games?: number, truncate?: number}} [how] */
  async rollOut({ count = 3, games = 1296, truncate = 0 } = {}) {
    const p = this.position;
    if (!p || !this.plays.length || this.running) return;
    const plays = this.plays.slice(0, count).map((play) => play.play);
    /** @type {Record<string, unknown>} */
    const body = { position_id: p.position_id, dice: this.dice.join(""), plays, games, truncate };
    if (p.match_id) body.match_id = p.match_id;
    await this.work(async () => {
      this.rollout = await this.deps.api("POST", "/api/explorer/rollouts", body);
    });
    this.follow();
  }

  get running() {
    return this.rollout?.status === "running";
  }

  /** The share of the rollout's games played (0 to 1). */
  get progress() {
    const r = this.rollout;
    return r && r.games ? r.games_done / r.games : 0;
  }

  /** Read the rollout again after a while, until it ends. */
  follow() {
    this.stopPolling?.();
    this.stopPolling = null;
    if (!this.running) return;
    this.stopPolling = this.deps.later(() => this.poll(), POLL_MS);
  }

  async poll() {
    const r = this.rollout;
    if (!r) return;
    try {
      this.rollout = await this.deps.api("GET", `/api/explorer/rollouts/${r.id}`);
    } catch (err) {
      this.error = refusal(err);
      this.rollout = { ...r, status: "failed", error: this.error };
    }
    this.deps.changed();
    this.follow();
  }

  /** Cancel the rollout running (it stops after the chunk of games in play). */
  async cancel() {
    const r = this.rollout;
    if (!r || !this.running) return;
    try {
      this.rollout = await this.deps.api("DELETE", `/api/explorer/rollouts/${r.id}`);
    } catch (err) {
      this.error = refusal(err);
    }
    this.deps.changed();
    this.follow();
  }

  /** The page is left: no more readings. */
  stop() {
    this.stopPolling?.();
    this.stopPolling = null;
  }

  /** Ask the server (`fn`), busy meanwhile; a refusal is said in the player's language.
   *  @param {() => Promise<void>} fn */
  work(fn) {
    return asking(this, fn, refusal);
  }

}

/** A refusal in the player's language where its reason is known, else the server's words.
 *  @param {any} err */
export function refusal(err) {
  if (err.code === "rollout_running") return t("explorer.rollout_running");
  if (err.code === "rated_match_live") return t("explorer.rated_live");
  if (err.code === "busy") return t("explorer.busy");
  return err.message || String(err);
}
