// @ts-check
// pages/account.js — the pages of a player: sign-in, registration and guests (#/signin),
// the leaderboard, a player's matches (#/history) and the options (#/options, stored on
// the server). Each page draws its controller (pages/account/ctrl.js: what it shows and
// its actions, no DOM) and turns its forms and buttons into the controller's actions.

import { language, LANGUAGES, setLanguage, t } from "../i18n.js";
import { api } from "../net.js";
import { HistoryCtrl, LeaderboardCtrl, OptionsCtrl, SignInCtrl } from "./account/ctrl.js";
import { Page, field, check, select } from "./page.js";
import { downloadLink, fmtDate, h, kindText, toast } from "../ui.js";

export class SignInPage extends Page {
  constructor(app) {
    super(app);
    this.ctrl = new SignInCtrl({
      me: () => this.app.me, api, switchSession: (call) => this.app.switchSession(call),
      refreshMe: () => this.app.refreshMe(), signOut: () => this.app.signOut(),
      navigate: (hash) => this.app.navigate(hash), notify: toast, current: () => this.app.page === this,
      changed: (part) => (part === "account" ? this.draw() : this.showError(part)),
    });
    /** @type {Record<string, HTMLElement>} each form's refusal, by the form's kind */
    this.errorText = {};
  }

  mount(main) {
    this.main = main;
    this.draw();
    this.ctrl.start();
  }

  draw() {
    const main = this.main;
    const me = this.app.me;
    const signedIn = this.ctrl.signedIn;
    const user = signedIn === "user";
    const status = h("p", { class: "muted", "data-signed-in": signedIn },
      me ? (user ? t("signin.signed_in_as", { name: me.name }) : t("signin.playing_as_guest", { name: me.name })) : "");
    /** @param {"login" | "register"} kind */
    const form = (kind) => {
      // the server checks names (any script, 3-20 characters after NFC): the field's limit
      // counts UTF-16 units, two for many a CJK character, so it only stops runaway input
      const error = h("p", { class: "error-text", role: "alert" }, this.ctrl.errors[kind]);
      this.errorText[kind] = error;
      const f = /** @type {HTMLFormElement} */ (h("form", { class: "stack", "data-form": kind },
        field(t("signin.name"), h("input", { type: "text", name: "name", required: true, autocomplete: "username", maxlength: 40 })),
        field(t("signin.password"), h("input", { type: "password", name: "password", required: true, autocomplete: kind === "login" ? "current-password" : "new-password", minlength: kind === "register" ? 8 : 1 })),
        error,
        h("button", { type: "submit", class: "primary" }, t(kind === "login" ? "signin.sign_in" : "signin.register"))));
      f.addEventListener("submit", (e) => {
        e.preventDefault();
        const data = new FormData(f);
        this.ctrl.submit(kind, String(data.get("name")), String(data.get("password")));
      });
      return f;
    };
    const guest = h("button", { type: "button", "data-act": "guest", onclick: () => this.ctrl.guest() }, t("signin.new_guest"));
    const account = user ? h("section", { class: "card stack", "data-card": "signed-in" },
      h("h2", {}, t("signin.signed_in_as", { name: me.name })),
      h("p", { class: "muted" }, t("signin.signed_in_text")),
      h("div", { class: "row" },
        h("a", { class: "button primary", href: "#/" }, t("nav.play")),
        h("a", { class: "button", href: `#/history/${encodeURIComponent(me.name)}` }, t("nav.history")),
        h("button", { type: "button", "data-act": "sign-out", onclick: () => this.ctrl.signOut() }, t("signin.sign_out")))) : null;
    main.replaceChildren(
      h("h1", {}, user ? t("signin.account") : t("signin.title")), status,
      h("div", { class: "grid" },
        account,
        h("section", { class: "card" }, h("h2", {}, user ? t("signin.other_account") : t("signin.sign_in")), form("login")),
        user ? null : h("section", { class: "card" }, h("h2", {}, t("signin.register")), form("register")),
        user ? null : h("section", { class: "card stack" }, h("h2", {}, t("signin.guest")), h("p", { class: "muted" }, t("signin.guest_text")),
          h("div", { class: "row" }, h("a", { class: "button primary", href: "#/" }, t("signin.play_as_guest")), guest))));
  }

  /** A form's refusal, said in the form (what was typed stays). @param {"login" | "register"} kind */
  showError(kind) {
    const error = this.errorText[kind];
    if (error) error.textContent = this.ctrl.errors[kind];
  }
}

/** A list's card, "loading" until its controller has read it. */
function listCard(main, title) {
  const body = h("div", {}, h("p", { class: "muted" }, t("common.loading")));
  main.replaceChildren(h("h1", {}, title), h("section", { class: "card" }, body));
  return body;
}

export class LeaderboardPage extends Page {
  constructor(app) {
    super(app);
    this.ctrl = new LeaderboardCtrl({ me: () => this.app.me, api, changed: () => this.show() });
  }

  mount(main) {
    this.body = listCard(main, t("leaderboard.title"));
    this.ctrl.load();
  }

  show() {
    const { rows, error } = this.ctrl;
    if (error) { this.body.replaceChildren(h("p", { class: "error-text" }, error)); return; }
    if (!rows?.length) { this.body.replaceChildren(h("p", { class: "empty" }, t("leaderboard.empty"))); return; }
    this.body.replaceChildren(h("table", {},
      h("thead", {}, h("tr", {}, h("th", { class: "num" }, "#"), h("th", {}, t("leaderboard.player")), h("th", { class: "num" }, t("leaderboard.rating")), h("th", { class: "num" }, t("leaderboard.experience")))),
      h("tbody", {}, rows.map((r) => h("tr", { class: this.ctrl.isMe(r) ? "me" : "" },
        h("td", { class: "num" }, r.rank),
        h("td", {}, h("a", { href: `#/profile/${encodeURIComponent(r.name)}` }, r.name)),
        h("td", { class: "num" }, Math.round(r.rating)),
        h("td", { class: "num" }, r.experience))))));
  }
}

export class HistoryPage extends Page {
  /** @param {any} app @param {string} name the player the route names ("": the signed-in one) */
  constructor(app, name) {
    super(app);
    this.ctrl = new HistoryCtrl(name, { me: () => this.app.me, api, changed: () => this.show() });
  }

  mount(main) {
    this.body = listCard(main, t("history.title", { name: this.ctrl.name }));
    main.querySelector("h1")?.after(h("p", {}, h("a", { href: `#/profile/${encodeURIComponent(String(this.ctrl.name))}`, "data-act": "profile" }, t("profile.link"))));
    this.ctrl.load();
  }

  show() {
    const { rows, error } = this.ctrl;
    if (error) { this.body.replaceChildren(h("p", { class: "error-text" }, error)); return; }
    if (!rows?.length) { this.body.replaceChildren(h("p", { class: "empty" }, t("history.empty"))); return; }
    this.body.replaceChildren(h("table", { class: "stackable" },
      h("thead", {}, h("tr", {}, h("th", {}, t("history.date")), h("th", {}, t("history.players")), h("th", {}, t("history.game")), h("th", {}, t("history.result")), h("th", {}, h("span", { class: "sr-only" }, t("lobby.actions"))))),
      h("tbody", {}, rows.map((r) => {
        const line = this.ctrl.line(r);
        return h("tr", { "data-game": r.id },
          h("td", { class: "small" }, fmtDate(r.created_at)),
          h("td", {}, line.players),
          h("td", {}, kindText({ kind: r.config.kind, length: r.config.length })),
          h("td", {}, line.result),
          h("td", { class: "actions" }, h("div", { class: "row" },
            line.resume ? h("a", { class: "button primary", href: line.resume }, t("history.resume")) : null,
            h("a", { class: "button", href: line.replay }, t("history.replay")),
            line.review ? h("a", { class: "button", href: line.review, "data-act": "review" }, t("history.review")) : null,
            line.mat ? downloadLink(line.mat, `${r.id}.mat`, t("history.download")) : null,
            line.sgf ? downloadLink(line.sgf, `${r.id}.sgf`, t("history.download_sgf")) : null,
            line.dice ? h("a", { class: "button", href: line.dice }, t("history.check_dice")) : null)));
      }))));
  }
}

export class OptionsPage extends Page {
  constructor(app) {
    super(app);
    this.ctrl = new OptionsCtrl({
      options: () => this.app.options, saveOptions: (patch) => this.app.saveOptions(patch),
      language, setLanguage, notify: toast,
      languageChanged: () => { this.app.renderChrome(); this.app.route(true); },
    });
  }

  mount(main) {
    const o = this.ctrl.options;
    const form = /** @type {HTMLFormElement} */ (h("form", { class: "stack", "data-form": "options" },
      h("fieldset", { class: "stack" }, h("legend", {}, t("options.play")),
        check(t("options.confirm_turn"), "confirm_turn", o.confirm_turn),
        check(t("options.auto_roll"), "auto_roll", o.auto_roll),
        check(t("options.auto_bearoff"), "auto_bearoff", o.auto_bearoff),
        check(t("options.tap_longest"), "tap_longest", o.tap_longest),
        h("p", { class: "muted small" }, t("options.rules_note"))),
      h("fieldset", { class: "stack" }, h("legend", {}, t("options.board")),
        check(t("options.flip"), "flip", o.flip),
        check(t("options.numbering"), "numbering", o.numbering),
        field(t("options.graphics"), select("graphics", [["high", t("options.graphics_high")], ["low", t("options.graphics_low")]], o.graphics)),
        check(t("options.sound"), "sound", o.sound)),
      h("fieldset", { class: "stack" }, h("legend", {}, t("options.language")),
        field(t("options.language"), select("language", Object.entries(LANGUAGES), this.ctrl.language))),
      h("div", { class: "row" }, h("button", { type: "submit", class: "primary" }, t("options.save")))));
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const data = new FormData(form);
      this.ctrl.save(this.ctrl.fromForm((name) => data.get(name)));
    });
    main.replaceChildren(h("h1", {}, t("options.title")), h("section", { class: "card", style: "max-width:640px" }, form));
  }
}
