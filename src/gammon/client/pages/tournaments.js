// @ts-check
// pages/tournaments.js — the tournaments (#/tournaments): the public ones upcoming, running
// and finished (GET /api/tournaments), and the form that organises a new one (knockout,
// Swiss or arena; match length, clock, rated, start time, player limit, a Swiss's rounds,
// an arena's minutes, private); once made, its page (pages/tournament.js). The page draws
// its controller (pages/tournaments/ctrl.js, no DOM) and turns the form into its action.

import { t } from "../i18n.js";
import { api } from "../net.js";
import { FORMATS, TournamentsCtrl } from "./tournaments/ctrl.js";
import { Page, field, check, select, clockOptions } from "./page.js";
import { fmtDate, h, kindText } from "../ui.js";

/** A tournament's settings in a line: its format, match length, clock, rated or not.
 *  @param {import("../wire.js").TournamentView} tm */
export function settingsText(tm) {
  return [t(`tournament.format_${tm.format}`), kindText({ kind: "match", length: tm.length }),
    tm.clock !== "none" ? t(`clock.kind_${tm.clock}`) : null,
    tm.rated ? t("lobby.rated") : t("lobby.unrated")].filter(Boolean).join(" · ");
}

/** A tournament's state in the player's language. @param {import("../wire.js").TournamentView} tm */
export function stateText(tm) {
  return t(`tournament.state_${tm.state}`);
}

export class TournamentsPage extends Page {
  /** @param {any} app */
  constructor(app) {
    super(app);
    this.ctrl = new TournamentsCtrl({ api, me: () => this.app.me, navigate: (hash) => this.app.navigate(hash), changed: () => this.show() });
    this.lists = h("div", { class: "stack", "aria-live": "polite", "data-part": "lists" }, h("p", { class: "muted" }, t("common.loading")));
    this.formError = h("p", { class: "error-text", role: "alert", hidden: true });
  }

  mount(main) {
    main.replaceChildren(h("h1", {}, t("tournament.list_title")),
      h("div", { class: "grid tournaments" },
        h("section", { class: "card", "aria-labelledby": "tournament-lists" },
          h("h2", { id: "tournament-lists", class: "sr-only" }, t("tournament.list_title")), this.lists),
        this.createCard()));
    this.ctrl.load();
    this.every(15_000, () => this.ctrl.load());
  }

  show() {
    this.formError.textContent = this.ctrl.error;
    this.formError.hidden = !this.ctrl.error;
    const list = this.ctrl.list;
    if (!list) return;
    /** @param {string} key @param {import("../wire.js").TournamentView[]} items */
    const part = (key, items) => h("section", { "data-list": key, "aria-labelledby": `tl-${key}` },
      h("h3", { id: `tl-${key}` }, t(`tournament.list_${key}`)),
      items.length ? h("ul", { class: "tournament-list" }, items.map((tm) => h("li", { "data-tournament": tm.id },
        h("a", { href: `#/tournaments/${encodeURIComponent(tm.id)}` }, h("strong", {}, tm.name)),
        h("span", { class: "muted small" }, ` ${settingsText(tm)}`),
        h("div", { class: "muted small" }, [
          t("tournament.players", { count: tm.players }),
          tm.state === "registering" ? (tm.starts_at ? t("tournament.starts_at", { time: fmtDate(tm.starts_at) }) : t("tournament.starts_by_hand")) : null,
          tm.state === "running" ? (tm.ends_at ? t("tournament.ends_at", { time: fmtDate(tm.ends_at) }) : t("tournament.round_n", { round: tm.round })) : null,
          tm.state === "finished" && tm.finished_at ? t("tournament.finished_at", { time: fmtDate(tm.finished_at) }) : null,
          t("tournament.by", { name: tm.organiser }),
        ].filter(Boolean).join(" · ")))))
        : h("p", { class: "empty" }, t(`tournament.none_${key}`)));
    this.lists.replaceChildren(part("upcoming", list.upcoming), part("running", list.running), part("finished", list.finished));
  }

  /** The form that organises a tournament (a registered player's; a guest is told to sign in). */
  createCard() {
    const formats = FORMATS.map((f) => [f, t(`tournament.format_${f}`)]);
    const number = (name, value, min, max) => h("input", { type: "number", name, value, min, max, required: true, inputmode: "numeric" });
    const form = h("form", { class: "stack", "data-form": "tournament" },
      field(t("tournament.name"), h("input", { type: "text", name: "name", required: true, minlength: 3, maxlength: 60, autocomplete: "off" })),
      h("div", { class: "form-grid" },
        field(t("tournament.format"), select("format", formats, "knockout")),
        field(t("lobby.length"), number("length", 3, 1, 25)),
        field(t("lobby.clock"), select("clock", clockOptions(), "none")),
        field(t("tournament.max_players"), number("max_players", 64, 2, 256)),
        h("label", { class: "field", "data-for": "swiss" }, h("span", {}, t("tournament.rounds")), number("rounds", 5, 1, 20)),
        h("label", { class: "field", "data-for": "arena" }, h("span", {}, t("tournament.duration")), number("duration", 60, 1, 10080))),
      field(t("tournament.start_time"), h("input", { type: "datetime-local", name: "starts_at" })),
      h("p", { class: "muted small" }, t("tournament.start_time_help")),
      check(t("lobby.rated"), "rated", false),
      check(t("tournament.private"), "private", false),
      this.formError,
      h("button", { type: "submit", class: "primary", "data-act": "create-tournament" }, t("tournament.create")));
    const control = (name) => /** @type {HTMLInputElement} */ (form.querySelector(`[name=${name}]`));
    const sync = () => {
      const format = control("format").value;
      for (const label of /** @type {NodeListOf<HTMLElement>} */ (form.querySelectorAll("[data-for]"))) {
        const on = label.dataset.for === format;
        label.hidden = !on;
        /** @type {HTMLInputElement} */ (label.querySelector("input")).disabled = !on;
      }
    };
    form.addEventListener("change", sync);
    sync();
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      /** @type {Record<string, string | boolean>} */
      const fields = {};
      for (const name of ["name", "format", "length", "clock", "max_players", "rounds", "duration", "starts_at"]) fields[name] = control(name).value;
      fields.rated = control("rated").checked;
      fields.private = control("private").checked;
      this.ctrl.create(fields);
    });
    const guest = !this.ctrl.mayCreate;
    if (guest) for (const el of /** @type {NodeListOf<HTMLInputElement>} */ (form.querySelectorAll("input, select, button"))) el.disabled = true;
    return h("section", { class: "card", "aria-labelledby": "tournament-create", "data-card": "create-tournament" },
      h("h2", { id: "tournament-create" }, t("tournament.create_title")),
      guest ? h("p", { class: "muted", "data-note": "sign-in" }, t("tournament.sign_in_to_create"), " ",
        h("a", { href: "#/signin" }, t("nav.sign_in"))) : null,
      form);
  }
}
