// @ts-check
// pages/lobby.js — the lobby (#/): the open games and the challenges, kept current by the
// socket; the new-game form (a match, a single or money game, against a player, a named
// opponent or the computer). The page draws its controller (pages/lobby/ctrl.js: the
// games, the challenges and the actions, no DOM) and turns the forms and buttons into its
// actions.

import { language, t } from "../i18n.js";
import { api } from "../net.js";
import { LobbyCtrl } from "./lobby/ctrl.js";
import { Page, field, check, select, clockOptions, playerCell, botMark } from "./page.js";
import { h, kindText, toast } from "../ui.js";

/** A game's rules beside its kind: the cube, the clock. */
function rulesText(g) {
  return [g.cube && g.kind !== "single" ? t("lobby.cube") : null, g.clock !== "none" ? t(`clock.kind_${g.clock}`) : null].filter(Boolean).join(", ");
}

/** Whether a game between players `a` and `b` will be rated (the server decides, as it
 *  does at the join: a match or single game between two registered players). */
function ratedBetween(g, a, b) {
  return g.kind !== "money" && a?.kind === "user" && b?.kind === "user";
}

export class LobbyPage extends Page {
  constructor(app) {
    super(app);
    this.ctrl = new LobbyCtrl({
      me: () => this.app.me, api, navigate: (hash) => this.app.navigate(hash), notify: toast,
      current: () => this.app.page === this,
      changed: (part) => (part === "games" ? this.showGames() : this.showChallenges()),
    });
  }

  mount(main) {
    this.list = h("div", { "aria-live": "polite" }, h("p", { class: "muted" }, t("common.loading")));
    this.mine = h("div");
    this.challengeTitle = h("h2", { id: "challenges-title", tabindex: -1 }, t("lobby.challenges_title"));
    this.challengeList = h("div", { "aria-live": "polite" });
    this.challengeCard = h("section", { class: "card", "aria-labelledby": "challenges-title", "data-card": "challenges", hidden: true },
      this.challengeTitle, this.challengeList);
    main.replaceChildren(
      h("h1", {}, t("lobby.title")),
      h("div", { class: "grid" },
        this.challengeCard,
        this.botCard(),
        this.createCard(),
        h("section", { class: "card", "aria-labelledby": "open-title" },
          h("h2", { id: "open-title" }, t("lobby.open_games")), this.list, this.mine)));
    // the open games and the challenges come by the socket, now and at every change (no polling)
    this.onLobby = (e) => this.ctrl.setGames(e.detail);
    this.onChallenges = (e) => this.ctrl.setChallenges(e.detail);
    this.app.socket.addEventListener("lobby", this.onLobby);
    this.app.socket.addEventListener("challenges", this.onChallenges);
    this.app.socket.followLobby(true);
  }

  unmount() {
    super.unmount();
    this.app.socket.removeEventListener("lobby", this.onLobby);
    this.app.socket.removeEventListener("challenges", this.onChallenges);
    this.app.socket.followLobby(false);
  }

  botCard() {
    const form = h("form", { class: "stack", "data-form": "bot" },
      h("div", { class: "form-grid" },
        field(t("lobby.bot_level"), select("bot", [1, 2, 3, 4, 5].map((n) => [n, t(`lobby.bot_${n}`)]), 3)),
        field(t("lobby.kind"), select("kind", [["match", t("game.kind_match")], ["single", t("game.kind_single")], ["money", t("game.kind_money")]], "match")),
        field(t("lobby.length"), h("input", { type: "number", name: "length", min: 1, max: 25, value: 3 }))),
      h("button", { type: "submit", class: "primary", "data-act": "play-bot" }, t("lobby.play_bot")));
    const kind = form.querySelector("[name=kind]");
    kind.addEventListener("change", () => { form.querySelector("[name=length]").disabled = kind.value !== "match"; });
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const data = new FormData(form);
      try {
        await this.ctrl.create({ bot: Number(data.get("bot")), kind: data.get("kind"), length: Number(data.get("length")) || 1, cube: true });
      } catch (err) { toast(this.ctrl.refusal(err), { error: true }); }
    });
    return h("section", { class: "card", "aria-labelledby": "bot-title" }, h("h2", { id: "bot-title" }, t("lobby.bot_title")),
      h("p", { class: "muted small" }, t("lobby.bot_text")),
      h("p", { class: "muted small", "data-note": "unrated" }, t("game.unrated")), form);
  }

  createCard() {
    const error = h("p", { id: "create-error", class: "error-text", role: "alert", "data-error": "create", hidden: true });
    const form = h("form", { class: "stack", "data-form": "create" },
      h("div", { class: "form-grid" },
        field(t("lobby.kind"), select("kind", [["match", t("game.kind_match")], ["single", t("game.kind_single")], ["money", t("game.kind_money")]], "match")),
        field(t("lobby.length"), h("input", { type: "number", name: "length", min: 1, max: 25, value: 5 })),
        field(t("lobby.clock"), select("clock", clockOptions(), "none"))),
      h("div", {},
        field(t("lobby.opponent"), h("input", { type: "text", name: "opponent", maxlength: 40, autocomplete: "off",
          autocapitalize: "off", spellcheck: "false", "aria-describedby": "opponent-help create-error" })),
        h("p", { id: "opponent-help", class: "muted small" }, t("lobby.opponent_help"))),
      h("fieldset", {}, h("legend", {}, t("lobby.rules")),
        check(t("lobby.cube"), "cube", true),
        check(t("lobby.jacoby"), "jacoby"),
        check(t("lobby.beavers"), "beavers"),
        check(t("lobby.winner_rolls_anew"), "winner_rolls_anew"),
        check(t("lobby.private"), "private")),
      h("details", {}, h("summary", {}, t("lobby.advanced")),
        field(t("lobby.client_seed"), h("input", { type: "text", name: "client_seed", maxlength: 64, autocomplete: "off" })),
        h("p", { class: "muted small" }, t("lobby.client_seed_help"))),
      h("p", { class: "muted small", "data-note": "unrated" }),
      error,
      h("button", { type: "submit", class: "primary", "data-act": "create" }, t("lobby.create")));
    const kind = form.querySelector("[name=kind]");
    const opponent = form.querySelector("[name=opponent]");
    const submit = form.querySelector("[data-act=create]");
    const unrated = form.querySelector("[data-note=unrated]");
    const sync = () => {
      // only a match or single game between two registered players is rated
      const guest = this.app.me?.kind !== "user";
      unrated.textContent = guest ? t("lobby.unrated_guest") : kind.value === "money" ? t("game.unrated") : "";
      unrated.hidden = !unrated.textContent;
      form.querySelector("[name=length]").disabled = kind.value !== "match";
      for (const name of ["jacoby", "beavers"]) form.querySelector(`[name=${name}]`).disabled = kind.value !== "money";
      form.querySelector("[name=cube]").disabled = kind.value === "single";
      // a challenge is seen by its two players alone: private already
      const challenge = Boolean(opponent.value.trim());
      form.querySelector("[name=private]").disabled = challenge;
      submit.textContent = challenge ? t("lobby.challenge") : t("lobby.create");
    };
    /** @param {string} text
     *  @param {HTMLElement | null} [field] */
    const showError = (text, field = null) => {
      error.textContent = text || "";
      error.hidden = !text;
      if (field) { field.setAttribute("aria-invalid", "true"); field.focus(); } else opponent.removeAttribute("aria-invalid");
    };
    kind.addEventListener("change", sync);
    opponent.addEventListener("input", () => { sync(); showError(""); });
    sync();
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const data = new FormData(form);
      const flag = (name) => data.get(name) === "on";
      const name = opponent.value.trim();
      showError("");
      try {
        await this.ctrl.create({
          kind: data.get("kind"), length: Number(data.get("length")) || 1, clock: data.get("clock"),
          cube: kind.value === "single" ? false : flag("cube"), jacoby: flag("jacoby"), beavers: flag("beavers"),
          winner_rolls_anew: flag("winner_rolls_anew"), private: !name && flag("private"),
          client_seed: data.get("client_seed") || "", ...(name ? { opponent: name } : {}),
        });
        if (name) {
          opponent.value = "";
          sync();
        }
      } catch (err) {
        const aboutOpponent = Boolean(name) && ["not_found", "own_game"].includes(err.code);
        showError(this.ctrl.refusal(err, name), aboutOpponent ? opponent : null);
      }
    });
    return h("section", { class: "card", "aria-labelledby": "create-title" }, h("h2", { id: "create-title" }, t("lobby.create_title")), form);
  }

  /** The open games. */
  showGames() {
    const me = this.app.me?.id;
    const games = this.ctrl.games ?? [];
    if (!games.length) {
      this.list.replaceChildren(h("p", { class: "empty" }, t("lobby.no_games")));
      return;
    }
    const rows = games.map((g) => {
      const mine = g.creator?.id === me;
      const rules = rulesText(g);
      return h("tr", { "data-game": g.id },
        h("td", {}, playerCell(g.creator)),
        h("td", {}, kindText(g), rules ? h("div", { class: "muted small" }, rules) : null),
        h("td", { class: "actions" }, mine
          ? h("a", { class: "button", href: `#/match/${g.id}` }, t("lobby.your_game"))
          : h("button", { type: "button", class: "primary", "data-act": "join", onclick: () => this.ctrl.join(g.id) }, t("lobby.join"))));
    });
    this.list.replaceChildren(h("table", { class: "stackable" }, tableHead(), h("tbody", {}, rows)));
  }

  /** The games reserved for this player (`received`: challenges and rematches to answer)
   *  and by them for another (`sent`: waiting for that player). */
  showChallenges() {
    const me = this.app.me;
    const received = this.ctrl.received ?? [];
    const sent = this.ctrl.sent ?? [];
    const details = (g, rated) => {
      const rules = rulesText(g);
      return h("div", { class: "muted small" }, [rules, rated ? t("lobby.rated") : t("lobby.unrated")].filter(Boolean).join(" · "));
    };
    const sections = [];
    if (received.length) {
      sections.push(h("h3", { id: "challenges-received" }, t("lobby.challenges_received")),
        h("table", { class: "stackable", "aria-labelledby": "challenges-received" }, tableHead(), h("tbody", {}, received.map((g) => {
          const name = g.creator?.name ?? "?";
          return h("tr", { "data-challenge": g.id },
            h("td", {}, playerCell(g.creator)),
            h("td", {}, kindText(g), details(g, ratedBetween(g, g.creator, me))),
            h("td", { class: "actions" }, h("div", { class: "row" },
              h("button", { type: "button", class: "primary", "data-act": "accept", "aria-label": t("lobby.accept_label", { name }),
                onclick: () => this.ctrl.join(g.id) }, t("lobby.accept")),
              h("button", { type: "button", "data-act": "decline", "aria-label": t("lobby.decline_label", { name }),
                onclick: (e) => this.answer(e.currentTarget, () => this.ctrl.decline(g.id)) }, t("lobby.decline")))));
        }))));
    }
    if (sent.length) {
      sections.push(h("h3", { id: "challenges-sent" }, t("lobby.challenges_sent")),
        h("table", { class: "stackable", "aria-labelledby": "challenges-sent" }, tableHead(), h("tbody", {}, sent.map((g) => {
          const name = g.opponent?.name ?? "?";
          return h("tr", { "data-sent": g.id },
            h("td", {}, h("span", { "data-waiting": name }, t("lobby.waiting_for", { name })), " ", g.opponent?.bot ? botMark() : null),
            h("td", {}, kindText(g), details(g, ratedBetween(g, me, g.opponent))),
            h("td", { class: "actions" }, h("div", { class: "row" },
              h("a", { class: "button", href: `#/match/${g.id}`, "data-act": "open" }, t("lobby.your_game")),
              h("button", { type: "button", class: "danger", "data-act": "withdraw", "aria-label": t("lobby.withdraw_label", { name }),
                onclick: (e) => this.answer(e.currentTarget, () => this.ctrl.withdraw(g)) }, t("lobby.withdraw")))));
        }))));
    }
    // the focus stays on the button it was on, or, its row gone, goes to the card (the page)
    const active = /** @type {HTMLElement | null} */ (this.challengeCard.contains(document.activeElement) ? document.activeElement : null);
    const row = active?.closest("tr");
    const attr = row?.hasAttribute("data-challenge") ? "data-challenge" : "data-sent";
    const same = row && active?.dataset.act ? `tr[${attr}="${row.getAttribute(attr)}"] [data-act="${active.dataset.act}"]` : null;
    this.challengeList.replaceChildren(...sections);
    this.challengeCard.hidden = !sections.length;
    if (active && !this.challengeCard.contains(document.activeElement)) {
      const again = same ? this.challengeList.querySelector(same) : null;
      (again || (this.challengeCard.hidden ? this.app.main : this.challengeTitle)).focus({ preventScroll: true });
    }
  }

  /** Decline or withdraw a challenge from its row's `button`, once at a time; the server's
   *  `challenges` message then takes the row away.
   *  @param {HTMLElement} button @param {() => Promise<boolean>} action whether it was done */
  async answer(button, action) {
    // aria-disabled, not disabled: a disabled button would lose the keyboard's focus
    if (button.getAttribute("aria-disabled") === "true") return;
    button.setAttribute("aria-disabled", "true");
    if (!(await action())) button.removeAttribute("aria-disabled");
  }
}

function tableHead() {
  return h("thead", {}, h("tr", {}, h("th", {}, t("lobby.player")), h("th", {}, t("lobby.game")), h("th", {}, h("span", { class: "sr-only" }, t("lobby.actions")))));
}
