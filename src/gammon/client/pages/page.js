// @ts-check
// pages/page.js — what the client's pages share: the page's life (mount, unmount, its
// timers), the page for an unknown route, and the form and player-name helpers.

import { t } from "../i18n.js";
import { h } from "../ui.js";

export class Page {
  constructor(app) { this.app = app; this.timers = []; }
  unmount() { for (const id of this.timers) clearInterval(id); }
  every(ms, fn) { this.timers.push(setInterval(fn, ms)); }
}

export class NotFoundPage extends Page {
  mount(main) {
    main.replaceChildren(h("h1", {}, t("notfound.title")), h("p", {}, h("a", { href: "#/" }, t("notfound.back"))));
  }
}

export function field(label, control) {
  return h("label", { class: "field" }, h("span", {}, label), control);
}

export function check(label, name, checked = false) {
  return h("label", { class: "check" }, h("input", { type: "checkbox", name, checked }), h("span", {}, label));
}

export function select(name, options, value) {
  return h("select", { name }, options.map(([v, label]) => h("option", { value: v, selected: String(v) === String(value) }, label)));
}

export function clockOptions() {
  return [["none", t("clock.kind_none")], ["italian", t("clock.kind_italian")],
    ["italian_per_point", t("clock.kind_italian_per_point")], ["polish", t("clock.kind_polish")]];
}

/** A player's name in a list of games: the name, the BOT mark of a program, the rating of a
 *  registered player. */
export function playerCell(user) {
  return [h("strong", {}, user?.name ?? "?"), " ", user?.bot ? botMark() : null,
    " ", h("span", { class: "muted small" }, user?.kind === "user" ? Math.round(user.rating) : "")];
}

export function botMark() {
  return h("span", { class: "bot-mark", "data-bot": "true" }, t("board.bot"));
}
