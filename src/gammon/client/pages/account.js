// @ts-check
// pages/account.js — the pages of a player: sign-in, registration and guests (#/signin),
// the leaderboard, a player's matches (#/history) and the options (#/options, stored on
// the server).

import { language, LANGUAGES, setLanguage, t } from "../i18n.js";
import { api } from "../net.js";
import { Page, field, check, select } from "./page.js";
import { downloadLink, fmtDate, h, kindText, sound, toast } from "../ui.js";

export class SignInPage extends Page {
  mount(main) {
    this.main = main;
    this.draw();
    // the session may have changed elsewhere (another tab): ask the server who this is
    const before = this.app.me?.id;
    this.app.refreshMe().then(() => { if (this.app.me?.id !== before && this.app.page === this) this.draw(); }).catch(() => {});
  }

  draw() {
    const main = this.main;
    const me = this.app.me;
    const user = me?.kind === "user";
    const status = h("p", { class: "muted", "data-signed-in": user ? "user" : me ? "guest" : "none" },
      me ? (user ? t("signin.signed_in_as", { name: me.name }) : t("signin.playing_as_guest", { name: me.name })) : "");
    const form = (kind) => {
      // the server checks names (any script, 3-20 characters after NFC): the field's limit
      // counts UTF-16 units, two for many a CJK character, so it only stops runaway input
      const error = h("p", { class: "error-text", role: "alert" });
      const f = h("form", { class: "stack", "data-form": kind },
        field(t("signin.name"), h("input", { type: "text", name: "name", required: true, autocomplete: "username", maxlength: 40 })),
        field(t("signin.password"), h("input", { type: "password", name: "password", required: true, autocomplete: kind === "login" ? "current-password" : "new-password", minlength: kind === "register" ? 8 : 1 })),
        error,
        h("button", { type: "submit", class: "primary" }, t(kind === "login" ? "signin.sign_in" : "signin.register")));
      f.addEventListener("submit", async (e) => {
        e.preventDefault();
        const data = new FormData(f);
        try {
          await this.app.switchSession(() => api("POST", `/api/${kind}`, { name: data.get("name"), password: data.get("password") }));
          toast(t("signin.welcome", { name: this.app.me.name }));
          this.app.navigate("#/");
        } catch (err) {
          const known = { bad_credentials: "signin.bad_credentials", name_taken: "signin.name_taken", bad_name: "signin.bad_name", weak_password: "signin.weak_password", rate_limited: "signin.rate_limited" };
          error.textContent = known[err.code] ? t(known[err.code]) : err.message;
        }
      });
      return f;
    };
    const guest = h("button", { type: "button", "data-act": "guest", onclick: async () => {
      await this.app.switchSession(() => api("POST", "/api/guest"));
      this.app.navigate("#/");
    } }, t("signin.new_guest"));
    const signedIn = user ? h("section", { class: "card stack", "data-card": "signed-in" },
      h("h2", {}, t("signin.signed_in_as", { name: me.name })),
      h("p", { class: "muted" }, t("signin.signed_in_text")),
      h("div", { class: "row" },
        h("a", { class: "button primary", href: "#/" }, t("nav.play")),
        h("a", { class: "button", href: `#/history/${encodeURIComponent(me.name)}` }, t("nav.history")),
        h("button", { type: "button", "data-act": "sign-out", onclick: () => this.app.signOut() }, t("signin.sign_out")))) : null;
    main.replaceChildren(
      h("h1", {}, user ? t("signin.account") : t("signin.title")), status,
      h("div", { class: "grid" },
        signedIn,
        h("section", { class: "card" }, h("h2", {}, user ? t("signin.other_account") : t("signin.sign_in")), form("login")),
        user ? null : h("section", { class: "card" }, h("h2", {}, t("signin.register")), form("register")),
        user ? null : h("section", { class: "card stack" }, h("h2", {}, t("signin.guest")), h("p", { class: "muted" }, t("signin.guest_text")),
          h("div", { class: "row" }, h("a", { class: "button primary", href: "#/" }, t("signin.play_as_guest")), guest))));
  }
}

export class LeaderboardPage extends Page {
  async mount(main) {
    const body = h("div", {}, h("p", { class: "muted" }, t("common.loading")));
    main.replaceChildren(h("h1", {}, t("leaderboard.title")), h("section", { class: "card" }, body));
    try {
      const rows = await api("GET", "/api/leaderboard");
      if (!rows.length) { body.replaceChildren(h("p", { class: "empty" }, t("leaderboard.empty"))); return; }
      body.replaceChildren(h("table", {},
        h("thead", {}, h("tr", {}, h("th", { class: "num" }, "#"), h("th", {}, t("leaderboard.player")), h("th", { class: "num" }, t("leaderboard.rating")), h("th", { class: "num" }, t("leaderboard.experience")))),
        h("tbody", {}, rows.map((r) => h("tr", { class: r.id === this.app.me?.id ? "me" : "" },
          h("td", { class: "num" }, r.rank),
          h("td", {}, h("a", { href: `#/history/${encodeURIComponent(r.name)}` }, r.name)),
          h("td", { class: "num" }, Math.round(r.rating)),
          h("td", { class: "num" }, r.experience))))));
    } catch (err) { body.replaceChildren(h("p", { class: "error-text" }, err.message)); }
  }
}

export class HistoryPage extends Page {
  constructor(app, name) { super(app); this.name = name || app.me?.name; }

  async mount(main) {
    const body = h("div", {}, h("p", { class: "muted" }, t("common.loading")));
    main.replaceChildren(h("h1", {}, t("history.title", { name: this.name })), h("section", { class: "card" }, body));
    try {
      const rows = await api("GET", `/api/users/${encodeURIComponent(this.name)}/history`);
      if (!rows.length) { body.replaceChildren(h("p", { class: "empty" }, t("history.empty"))); return; }
      body.replaceChildren(h("table", { class: "stackable" },
        h("thead", {}, h("tr", {}, h("th", {}, t("history.date")), h("th", {}, t("history.players")), h("th", {}, t("history.game")), h("th", {}, t("history.result")), h("th", {}, h("span", { class: "sr-only" }, t("lobby.actions"))))),
        h("tbody", {}, rows.map((r) => {
          const seat = r.players.indexOf(this.name);
          let result = t(`history.status_${r.status}`);
          if (r.result) {
            const won = r.winner === seat;
            result = `${seat < 0 ? r.players[r.winner] : won ? t("history.won") : t("history.lost")} ${r.result.score.join("–")}`;
          }
          const playing = r.status === "playing" || r.status === "open";
          return h("tr", { "data-game": r.id },
            h("td", { class: "small" }, fmtDate(r.created_at)),
            h("td", {}, r.players.map((p) => p ?? "…").join(" – ")),
            h("td", {}, kindText({ kind: r.config.kind, length: r.config.length })),
            h("td", {}, result),
            h("td", { class: "actions" }, h("div", { class: "row" },
              playing ? h("a", { class: "button primary", href: `#/match/${r.id}` }, t("history.resume")) : null,
              h("a", { class: "button", href: `#/replay/${r.id}` }, t("history.replay")),
              r.status === "finished" ? h("a", { class: "button", href: `#/review/${r.id}`, "data-act": "review" }, t("history.review")) : null,
              r.status !== "open" ? downloadLink(`/api/games/${r.id}/export.mat`, `${r.id}.mat`, t("history.download")) : null,
              r.status !== "open" ? downloadLink(`/api/games/${r.id}/export.sgf`, `${r.id}.sgf`, t("history.download_sgf")) : null,
              r.status === "finished" ? h("a", { class: "button", href: `#/fairness/${r.id}` }, t("history.check_dice")) : null)));
        }))));
    } catch (err) { body.replaceChildren(h("p", { class: "error-text" }, err.status === 404 ? t("history.no_player") : err.message)); }
  }
}

export class OptionsPage extends Page {
  mount(main) {
    const o = this.app.options;
    const form = h("form", { class: "stack", "data-form": "options" },
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
        field(t("options.language"), select("language", Object.entries(LANGUAGES), language()))),
      h("div", { class: "row" }, h("button", { type: "submit", class: "primary" }, t("options.save"))));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const data = new FormData(form);
      const patch = {};
      for (const key of ["confirm_turn", "auto_roll", "auto_bearoff", "tap_longest", "flip", "numbering", "sound"]) patch[key] = data.get(key) === "on";
      patch.graphics = data.get("graphics");
      patch.language = data.get("language");
      await this.app.saveOptions(patch);
      if (patch.language !== language()) {
        await setLanguage(patch.language);
        this.app.renderChrome();
        this.app.route(true);
      }
      toast(t("options.saved"));
    });
    main.replaceChildren(h("h1", {}, t("options.title")), h("section", { class: "card", style: "max-width:640px" }, form));
  }
}
