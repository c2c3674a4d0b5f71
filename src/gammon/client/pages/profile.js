// @ts-check
// pages/profile.js — a player's profile (#/profile[/NAME]): the rating over time and the
// error rate over time as graphs, results by kind and length, the most frequent opponents,
// the tournaments entered (a place in each finished one), and a link to every match. The page draws its controller (pages/profile/ctrl.js, no DOM).

import { NS } from "../board.js";
import { t } from "../i18n.js";
import { api } from "../net.js";
import { ProfileCtrl } from "./profile/ctrl.js";
import { Page } from "./page.js";
import { h, kindText } from "../ui.js";

const WIDTH = 320;
const HEIGHT = 90;

/** An SVG line graph of `g` (or a word that there is nothing to draw), labelled `label`.
 *  @param {import("./profile/ctrl.js").Graph | null} g @param {string} label @param {string} kind */
function lineGraph(g, label, kind) {
  if (!g) return h("p", { class: "empty" }, t("profile.no_points"));
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", `-4 -4 ${WIDTH + 8} ${HEIGHT + 8}`);
  svg.setAttribute("class", `profile-graph ${kind}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", label);
  svg.dataset.points = String(g.count);
  const line = document.createElementNS(NS, "polyline");
  line.setAttribute("points", g.points);
  svg.append(line);
  return svg;
}

/** A day in the page's language (a narrow table's date: no time). @param {number} seconds */
function day(seconds) {
  return new Date(seconds * 1000).toLocaleDateString(document.documentElement.lang || undefined, { dateStyle: "medium" });
}

/** The tournaments card: a row a tournament (its name linking to its page), or a line
 *  that there is none. @param {import("./profile/ctrl.js").TournamentRow[]} rows */
function tournamentsCard(rows) {
  return h("section", { class: "card", "data-part": "tournaments" }, h("h2", {}, t("profile.tournaments")),
    rows.length ? h("div", { class: "table-scroll" }, h("table", { class: "review-table" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("tournament.title")), h("th", { scope: "col" }, t("tournament.format")),
        h("th", { scope: "col" }, t("profile.place")), h("th", { scope: "col" }, t("history.date")))),
      h("tbody", {}, rows.map((r) => h("tr", { "data-tournament": r.id },
        h("th", { scope: "row" }, h("a", { href: r.href }, r.name)), h("td", {}, r.format),
        h("td", { "data-part": "place" }, r.place), h("td", {}, r.finishedAt === null ? "—" : day(r.finishedAt)))))))
      : h("p", { class: "empty" }, t("profile.no_tournaments")));
}

export class ProfilePage extends Page {
  /** @param {any} app @param {string} name */
  constructor(app, name) {
    super(app);
    this.ctrl = new ProfileCtrl(name, { me: () => this.app.me, api, changed: () => this.show() });
    this.body = h("div", { class: "stack" }, h("p", { class: "muted" }, t("common.loading")));
  }

  mount(main) {
    main.replaceChildren(h("h1", {}, t("profile.title", { name: this.ctrl.name })), this.body);
    this.ctrl.load();
  }

  show() {
    const c = this.ctrl;
    const p = c.profile;
    if (c.error || !p) { this.body.replaceChildren(h("p", { class: "error-text" }, c.error)); return; }
    const rating = c.ratingGraph(WIDTH, HEIGHT);
    const errors = c.errorGraph(WIDTH, HEIGHT);
    const mean = c.meanErrorRate;
    const history = `#/history/${encodeURIComponent(p.user.name)}`;
    this.body.replaceChildren(
      h("div", { class: "grid" },
        h("section", { class: "card stack", "data-part": "rating" }, h("h2", {}, t("profile.rating")),
          h("p", { class: "big num" }, String(Math.round(p.user.rating))),
          lineGraph(rating, t("profile.rating_graph", { count: p.ratings.length }), "rating"),
          rating ? h("p", { class: "muted small" }, t("profile.range", { low: Math.round(rating.low), high: Math.round(rating.high) })) : null),
        h("section", { class: "card stack", "data-part": "errors" }, h("h2", {}, t("profile.error_rate")),
          h("p", { class: "big num" }, mean === null ? "—" : mean.toFixed(1)),
          lineGraph(errors, t("profile.error_graph", { count: p.error_rates.length }), "errors"),
          h("p", { class: "muted small" }, t("profile.error_explain")))),
      h("div", { class: "grid" },
        h("section", { class: "card" }, h("h2", {}, t("profile.results")),
          p.results.length ? h("table", { class: "review-table" },
            h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("history.game")), h("th", { scope: "col" }, t("profile.played")), h("th", { scope: "col" }, t("profile.won")))),
            h("tbody", {}, p.results.map((r) => h("tr", {}, h("th", { scope: "row" }, kindText({ kind: r.kind, length: r.length })),
              h("td", { class: "num" }, String(r.played)), h("td", { class: "num" }, `${r.won} (${Math.round((100 * r.won) / r.played)}%)`)))))
            : h("p", { class: "empty" }, t("history.empty"))),
        h("section", { class: "card" }, h("h2", {}, t("profile.opponents")),
          p.opponents.length ? h("table", { class: "review-table" },
            h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("profile.opponent")), h("th", { scope: "col" }, t("profile.played")), h("th", { scope: "col" }, t("profile.won")))),
            h("tbody", {}, p.opponents.map((o) => h("tr", {}, h("th", { scope: "row" }, h("a", { href: `#/profile/${encodeURIComponent(o.opponent)}` }, o.opponent)),
              h("td", { class: "num" }, String(o.played)), h("td", { class: "num" }, String(o.won))))))
            : h("p", { class: "empty" }, t("history.empty")))),
      tournamentsCard(c.tournaments),
      h("p", {}, h("a", { href: history, "data-act": "history" }, t("profile.all_matches"))));
  }
}
