// @ts-check
// review/decision.js — the review's decision panel: the decisions rated at the frame shown
// (a cube decision with the engine's equities and chances, a checker play with the engine's
// best plays), and the engine's play drawn on the board beside the play made.

import { t } from "../i18n.js";
import { api } from "../net.js";
import { h } from "../ui.js";

/** @param {number} x */
export const signed = (x, digits = 3) => `${x >= 0 ? "+" : ""}${x.toFixed(digits)}`;
/** @param {number} p */
export const percent = (p) => `${(100 * p).toFixed(1)}%`;
/** @param {number | null | undefined} x @param {(x: number) => string} format */
const orDash = (x, format) => (x === null || x === undefined ? "–" : format(x));
/** @type {Record<string, string>} */
export const MARK_CLASS = { "?": "error", "??": "blunder" };
/** The word (review.cube_*) of each action of a cube view's equities: its own name but one. */
/** @type {Record<string, string>} */
const CUBE_ACTIONS = { pass: "drop" };

/** What graded a decision, in words: the analysis's `graded_by` ("2-ply", or "rollout 1296
 *  games, 7 plies" for an error graded again by rollouts). */
/** @param {string} by */
export function gradedText(by) {
  const rollout = /^rollout (\d+) games, (\d+) plies$/.exec(by);
  if (rollout) return t("review.graded_rollout", { games: rollout[1], plies: rollout[2] });
  const ply = /^(\d+)-ply$/.exec(by);
  return ply ? t("review.graded_ply", { count: ply[1] }) : by;
}

/** The panel of the review page `page` (review.js: its `analysis`, `info`, `index`, board
 *  `view` and `moveLabel`).
 *  @typedef {{analysis: any, info: any, index: number, view: import("../board.js").BoardView,
 *    moveLabel: (d: any, frame: number) => string}} ReviewPage */
/** The checker decision shown: the decision, its list of plays and legend, the plays listed
 *  (once the engine's came) and the one drawn.
 *  @typedef {{d: any, list: HTMLElement, legend: HTMLElement, plays: any[] | null, pick: number}} Shown */

export class DecisionPanel {
  /** @param {ReviewPage} page */
  constructor(page) {
    this.page = page;
    this.el = h("section", { class: "card review-decision", "aria-live": "polite", "aria-label": t("review.decision") });
    /** @type {Map<string, Promise<any>>} the engine's ranked plays by position and roll */
    this.hints = new Map();
    /** @type {Map<string, Promise<any>>} the engine's cube decisions by position and Match ID */
    this.evals = new Map();
    /** @type {Shown | null} */
    this.shown = null; // the checker decision shown: {d, plays (the listed ones), pick, ...}
  }

  /** The decisions rated at the frame shown. @param {{checker: any, cube: any}} rated */
  render({ checker, cube }) {
    const box = this.el;
    box.dataset.frame = String(this.page.index);
    if (!this.page.analysis) { box.replaceChildren(h("p", { class: "muted" }, t("review.waiting"))); return; }
    const parts = [];
    this.shown = null;
    if (cube) parts.push(this.cubePart(cube));
    if (checker) parts.push(this.checkerPart(checker));
    if (!parts.length) parts.push(h("p", { class: "muted" }, t("review.no_decision")));
    box.replaceChildren(...parts);
  }

  /** @param {string | null | undefined} mark */
  markText(mark) {
    return mark ? h("span", { class: `rv-mark ${MARK_CLASS[mark]}`, "data-field": "mark" }, `${mark} ${t(`review.${MARK_CLASS[mark]}`)}`) : null;
  }

  /** @param {any} cube a cube decision of the analysis */
  cubePart(cube) {
    const name = this.page.info.seats[cube.player]?.name ?? "?";
    const details = h("div", { class: "rv-cube-eval", "aria-live": "polite" }, cube.match_id ? h("p", { class: "muted small" }, t("common.loading")) : null);
    if (cube.match_id) this.cubeEval(cube, details);
    return h("div", { class: "rv-cube", "data-kind": "cube" },
      h("h2", {}, t("review.cube_title", { name })),
      h("p", {}, t("review.cube_chosen"), " ", h("strong", { "data-field": "chosen" }, t(`review.cube_${cube.chosen.replace(/ /g, "_")}`)), " ",
        this.markText(cube.mark), cube.loss > 0 ? h("span", { class: "muted" }, ` ${signed(-cube.loss)}`) : null),
      h("p", {}, t("review.cube_proper"), " ", h("strong", { "data-field": "proper" }, t(`review.cube_${cube.proper.replace(/ /g, "_")}`))),
      details);
  }

  /** The engine's view of a cube decision (`POST /api/eval` with its Match ID, at the
   *  analysis's depth): the equity of each action (and its match winning chance in a
   *  match), the cubeless chances of both sides, and the take point at the score.
   *  @param {any} cube @param {HTMLElement} box */
  async cubeEval(cube, box) {
    const key = `${cube.position_id}/${cube.match_id}/${this.page.analysis.plies}`;
    try {
      if (!this.evals.has(key)) {
        this.evals.set(key, api("POST", "/api/eval", { position_id: cube.position_id, match_id: cube.match_id, plies: this.page.analysis.plies }));
      }
      const view = (await this.evals.get(key)).cube;
      if (!view) { box.replaceChildren(); return; }
      const seats = [view.player, 1 - view.player];
      const name = (/** @type {number} */ seat) => this.page.info.seats[seat]?.name ?? "?";
      const p = view.probabilities;
      const chances = [["win", p.win, 1 - p.win], ["gammon", p.win_gammon, p.lose_gammon], ["backgammon", p.win_backgammon, p.lose_backgammon]];
      // a double's receiver: the other side of a cube decision, the player of an answer
      const receiver = "no_double" in view.equities ? 1 - view.player : view.player;
      box.replaceChildren(
        h("table", { class: "review-table rv-equities", "aria-label": t("review.cube_equities") },
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("review.cube_action")), h("th", { scope: "col" }, t("review.equity")),
            view.mwc ? h("th", { scope: "col" }, t("review.mwc")) : null)),
          h("tbody", {}, Object.entries(view.equities).map(([action, equity]) => h("tr", { "data-action": action },
            h("th", { scope: "row" }, t(`review.cube_${CUBE_ACTIONS[action] ?? action}`)),
            h("td", { "data-field": "equity" }, orDash(equity, signed)),
            view.mwc ? h("td", { "data-field": "mwc" }, orDash(view.mwc[action], percent)) : null)))),
        h("table", { class: "review-table rv-chances", "aria-label": t("review.chances") },
          h("thead", {}, h("tr", {}, h("th", {}, h("span", { class: "sr-only" }, t("review.chances"))),
            seats.map((seat) => h("th", { scope: "col" }, name(seat))))),
          h("tbody", {}, chances.map(([kind, mine, theirs]) => h("tr", { "data-chance": kind },
            h("th", { scope: "row" }, t(`review.chance_${kind}`)),
            h("td", { "data-seat": seats[0] }, percent(mine)), h("td", { "data-seat": seats[1] }, percent(theirs)))))),
        view.take_point === null ? null : h("p", { class: "small" }, t("review.take_point", { name: name(receiver) }), " ",
          h("strong", { "data-field": "take_point" }, percent(view.take_point))));
    } catch (err) {
      this.evals.delete(key);
      box.replaceChildren(h("p", { class: "error-text" }, /** @type {Error} */ (err).message));
    }
  }

  /** @param {any} d a checker decision of the analysis */
  checkerPart(d) {
    const played = d.played || t("moves.cannot_move");
    const list = h("ol", { class: "rv-plays", "aria-label": t("review.top_plays") }, h("li", { class: "muted" }, t("common.loading")));
    const legend = h("p", { class: "rv-legend small", "aria-live": "polite" });
    const step = (/** @type {string} */ label, /** @type {number} */ by, /** @type {string} */ act) => h("button", { type: "button", class: "small", "data-act": act, "aria-label": label, title: label,
      "aria-keyshortcuts": by > 0 ? "ArrowDown" : "ArrowUp", onclick: () => this.stepPlay(by) }, by > 0 ? "▼" : "▲");
    this.shown = { d, list, legend, plays: null, pick: 0 };
    this.topPlays(d, list);
    return h("div", { class: "rv-checker", "data-kind": "checker" },
      h("h2", {}, this.page.moveLabel(d, this.page.index)),
      h("p", {}, t("review.played"), " ", h("strong", { "data-field": "played" }, played), " ",
        h("span", { class: "num" }, signed(d.played_equity)), " ", this.markText(d.mark),
        d.loss > 0 ? h("span", { class: "muted", "data-field": "loss" }, ` ${signed(-d.loss)}`) : null,
        d.forced ? h("span", { class: "muted" }, ` (${t("review.forced")})`) : null),
      d.graded_by ? h("p", { class: "muted small", "data-field": "graded_by", "data-graded": d.graded_by }, gradedText(d.graded_by)) : null,
      d.best !== d.played ? h("p", {}, t("review.best"), " ", h("strong", { "data-field": "best" }, d.best), " ", h("span", { class: "num" }, signed(d.best_equity))) : null,
      h("p", { class: "small" }, t("review.luck"), ": ", h("span", { "data-field": "luck" }, signed(d.luck)), " · ",
        t("review.win_chance", { name: this.page.info.seats[d.player]?.name ?? "?" }), " ", h("span", { "data-field": "win_chance" }, percent(d.win_chance)),
        d.match_winning_chance != null ? [" · ", t("review.match_chance", { name: this.page.info.seats[d.player]?.name ?? "?" }), " ",
          h("span", { "data-field": "match_winning_chance" }, percent(d.match_winning_chance))] : null),
      h("div", { class: "rv-plays-head" }, h("h3", { class: "small" }, t("review.top_plays")),
        step(t("review.prev_play"), -1, "prev-play"), step(t("review.next_play"), 1, "next-play")),
      legend, list,
      h("p", { class: "muted small" }, t("review.plays_keys")));
  }

  /** Draw the `index`-th listed play of the engine on the board beside the play made
   *  (nothing more where it is the play made); the legend says which colour is which.
   *  @param {number} index */
  pickPlay(index) {
    const shown = this.shown;
    if (!shown?.plays) return;
    shown.pick = index;
    const { d, plays, legend, list } = shown;
    const pick = plays[index];
    const text = (/** @type {string | null} */ play) => play || t("moves.cannot_move");
    list.querySelectorAll(".rv-play").forEach((b, i) => b.setAttribute("aria-pressed", String(i === index)));
    const state = this.page.view.state;
    const played = `${t("review.played")} ${text(d.played)}`;
    const engine = t("review.engine_play", { rank: pick.rank + 1, play: text(pick.play) });
    const same = pick.play === d.played;
    this.page.view.render({ ...state,
      last: state.last && { ...state.last, label: played },
      compare: same ? null : { seat: d.player, moves: pick.moves, label: engine } });
    legend.replaceChildren(
      h("span", { class: "rv-key last", "data-field": "shown-played" }, played),
      same ? h("span", { class: "muted" }, " ", t("review.pick_is_played", { rank: pick.rank + 1 }))
        : h("span", { class: "rv-key compare", "data-field": "shown-engine" }, engine));
  }

  /** Step the play drawn beside the play made through the listed ones; whether it did.
   *  @param {number} by */
  stepPlay(by) {
    const shown = this.shown;
    if (!shown?.plays) return false;
    this.pickPlay(Math.max(0, Math.min(shown.plays.length - 1, shown.pick + by)));
    return true;
  }

  /** The engine's ranked plays of the decision (`POST /api/hint` at the analysis's depth and
   *  at the decision's score: its `match_id`, absent from analyses made before it was
   *  recorded), the played one marked; the first five, and the played one where it is lower.
   *  @param {any} d @param {HTMLElement} list */
  async topPlays(d, list) {
    const key = `${d.position_id}/${d.roll}/${d.match_id || ""}/${this.page.analysis.plies}`;
    try {
      if (!this.hints.has(key)) {
        /** @type {Record<string, unknown>} */
        const body = { position_id: d.position_id, dice: d.roll, plies: this.page.analysis.plies };
        if (d.match_id) body.match_id = d.match_id;
        this.hints.set(key, api("POST", "/api/hint", body));
      }
      const plays = (await this.hints.get(key)).plays;
      const best = plays[0]?.equity ?? 0;
      /** @type {any[]} */
      const rows = plays.map((/** @type {any} */ p, /** @type {number} */ rank) => ({ ...p, rank })).filter((/** @type {any} */ p) => p.rank < 5 || p.play === d.played);
      list.replaceChildren(...rows.map((p, i) => h("li", { class: p.play === d.played ? "played" : null, value: p.rank + 1 },
        h("button", { type: "button", class: "rv-play", "aria-pressed": "false", onclick: () => this.pickPlay(i) }, p.play || t("moves.cannot_move")), " ",
        h("span", { class: "num" }, signed(p.play === d.played ? d.played_equity : p.equity)),
        p.rank ? h("span", { class: "muted num" }, ` ${signed((p.play === d.played ? d.played_equity : p.equity) - best)}`) : null)));
      // still the decision shown: the best play drawn beside the one made
      if (this.shown?.list === list) {
        this.shown.plays = rows;
        this.pickPlay(0);
      }
    } catch (err) {
      this.hints.delete(key);
      list.replaceChildren(h("li", { class: "error-text" }, /** @type {Error} */ (err).message));
    }
  }
}
