// @ts-check
// round/view/over.js — the match-end dialog's parts: who won and how, the final score (a
// money session: the points won or lost), the ratings before and after (rated matches), each
// side's error rate once the analysis is done, and the links on (review, .mat download).
// Filled from the controller (its `overFacts` and `end`: over.js) whenever they move.

import { language, t } from "../../i18n.js";
import { downloadLink, h } from "../../ui.js";

/** @typedef {import("../ctrl.js").RoundCtrl} RoundCtrl */

export class OverView {
  /** @param {RoundCtrl} ctrl */
  constructor(ctrl) {
    this.ctrl = ctrl;
    this.how = h("p", { class: "over-how", "data-over": "how" });
    this.score = h("p", { class: "over-score", "data-over": "score" });
    this.ratings = h("div", { class: "over-ratings", "data-over": "ratings" });
    this.analysis = h("div", { class: "over-analysis", "data-over": "analysis", "aria-live": "polite" });
    /** @param {string} href @param {string} label @param {string} act */
    const link = (href, label, act) => h("a", { class: "button", href, "data-act": act }, label);
    const links = h("p", { class: "over-links" },
      link(`#/review/${ctrl.id}${ctrl.query}`, t("over.review"), "review"),
      downloadLink(`/api/games/${ctrl.id}/export.mat${ctrl.query}`, `${ctrl.id}.mat`, t("history.download")));
    /** The dialog's body, to lay out under its title. */
    this.body = [this.how, this.score, this.ratings, this.analysis, links];
    /** @type {HTMLElement | null} the dialog's title */
    this.title = null;
  }

  fill() {
    const ctrl = this.ctrl;
    const { winner, score, reason, game } = ctrl.overFacts();
    const kind = ctrl.info?.kind ?? "match";
    if (winner === null) return;
    const name = ctrl.name(winner);
    const loser = ctrl.name(1 - winner);
    // the title: who won (a money session: the points won or lost)
    let title;
    if (kind === "money") {
      const seat = ctrl.isPlayer ? /** @type {number} */ (ctrl.you) : (score[0] >= score[1] ? 0 : 1);
      const net = score[seat] - score[1 - seat];
      if (net === 0) title = t("over.money_even");
      else if (ctrl.isPlayer) title = t(net > 0 ? "over.money_you_won" : "over.money_you_lost", { count: Math.abs(net) });
      else title = t("over.money_won", { name: ctrl.name(seat), count: net });
    } else if (!ctrl.isPlayer) title = t(kind === "single" ? "over.winner_game" : "over.winner", { name });
    else if (kind === "single") title = winner === ctrl.you ? t("over.you_won_game") : t("over.you_lost_game");
    else title = winner === ctrl.you ? t("over.you_won") : t("over.you_lost");
    if (this.title) this.title.textContent = title;
    // how: the way the last game (or the match) was lost
    const points = game ? t("over.points", { count: game.points }) : "";
    let how = "";
    if (reason === "abandon" || reason === "timeout") {
      const forfeit = game && game.kind === reason; // the game in play was lost with the match
      if (kind === "money") how = t(forfeit ? `over.how_${reason}_money` : `over.how_${reason}_between`, { name, loser, points });
      else how = t(`over.how_${reason}`, { name, loser });
    } else if (game) {
      how = t(`over.how_${game.kind}`, { name: ctrl.name(game.winner), loser: ctrl.name(1 - game.winner), points });
      if (kind === "match") how = `${t("over.last_game")} ${how}`;
    }
    this.how.textContent = how;
    this.how.dataset.reason = reason || "";
    this.how.dataset.kind = game?.kind || "";
    this.score.textContent = t("over.score", { a: ctrl.name(0), b: ctrl.name(1), score: score.join("–") });
    this.fillRatings();
    this.fillAnalysis();
  }

  /** Rated matches: each player's rating before and after, as the server stored it; bot,
   *  guest and money play leave ratings as they were: it says so, not silence. */
  fillRatings() {
    const info = this.ctrl.info;
    if (!info?.rated) { this.ratings.replaceChildren(h("p", { class: "muted", "data-over": "unrated" }, t("game.unrated"))); return; }
    const changes = this.ctrl.end.ratingChanges;
    const fmt = new Intl.NumberFormat(language(), { minimumFractionDigits: 1, maximumFractionDigits: 1, useGrouping: false });
    const rows = (info.seats || []).filter((/** @type {any} */ s) => s && s.kind === "user").map((/** @type {any} */ s) => {
      const change = changes?.[s.name];
      return h("li", { "data-rating": s.name },
        change ? t("over.rating_change", { name: s.name, before: fmt.format(change.before), after: fmt.format(change.after) })
          : t("over.rating_pending", { name: s.name }));
    });
    this.ratings.replaceChildren(h("h3", {}, t("over.ratings")), h("ul", { class: "plain" }, rows));
  }

  /** The analysis's progress while it runs, then each side's error rate. */
  fillAnalysis() {
    const end = this.ctrl.end;
    const a = end.analysis;
    if (!a) {
      const state = end.analysisState || {};
      let text = t("over.analysing", { percent: 0 });
      if (state.error) text = t("over.analysis_failed", { message: state.error });
      else if (state.busy) text = t("over.analysis_busy");
      else if (state.progress) {
        const { done, total } = state.progress;
        text = t("over.analysing", { percent: total ? Math.round((100 * done) / total) : 0 });
      }
      this.analysis.replaceChildren(h("p", { class: "muted", "data-analysis": state.error ? "failed" : "running" }, text));
      return;
    }
    const one = new Intl.NumberFormat(language(), { minimumFractionDigits: 1, maximumFractionDigits: 1 });
    const rows = a.players.map((/** @type {any} */ p) => h("tr", { "data-player": p.player },
      h("th", { scope: "row" }, this.ctrl.name(p.player)),
      h("td", { "data-stat": "error_rate" }, one.format(p.error_rate_mp)),
      h("td", { "data-stat": "pr" }, one.format(p.performance_rating)),
      h("td", {}, String(p.errors)),
      h("td", {}, String(p.blunders))));
    this.analysis.replaceChildren(h("table", { class: "over-stats", "data-analysis": "done" },
      h("caption", {}, t("over.analysis_title")),
      h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", { scope: "col" }, t("over.error_rate")),
        h("th", { scope: "col" }, t("over.pr")), h("th", { scope: "col" }, t("over.errors")), h("th", { scope: "col" }, t("over.blunders")))),
      h("tbody", {}, rows)));
  }
}
