// @ts-check
// pages/lobby.js — the lobby (#/): Play now (a pool's choices, the wait with its time and
// Cancel, how many wait in each pool), the open games and the challenges, kept current by
// the socket; the new-game form (a match, a single or money game, against a player, a named
// opponent or the computer); a link to the tournaments. The page draws its controller (pages/lobby/ctrl.js: the
// games, the challenges and the actions, no DOM) and turns the forms and buttons into its
// actions.

import { callBack } from "../attention.js";
import { language, t } from "../i18n.js";
import { api } from "../net.js";
import { LobbyCtrl, PLAY_NOW_LENGTHS } from "./lobby/ctrl.js";
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
      me: () => this.app.me, api, navigate: (hash) => this.app.navigate(hash), notify: toast, callBack,
      current: () => this.app.page === this,
      changed: (part) => {
        if (part === "games") this.showGames();
        else if (part === "challenges") this.showChallenges();
        else this.showPlayNow();
      },
      send: (message) => this.app.socket.send(message),
    });
    /** @type {[string, (e: any) => void][]} the socket's events this page listens to */
    this.listeners = [];
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
        this.playNowCard(),
        this.challengeCard,
        this.botCard(),
        this.createCard(),
        h("section", { class: "card stack", "aria-labelledby": "tournaments-title", "data-card": "tournaments" },
          h("h2", { id: "tournaments-title" }, t("nav.tournaments")), h("p", { class: "muted" }, t("lobby.tournaments_text")),
          h("p", {}, h("a", { class: "button", href: "#/tournaments", "data-act": "tournaments" }, t("lobby.tournaments_link")))),
        h("section", { class: "card", "aria-labelledby": "open-title" },
          h("h2", { id: "open-title" }, t("lobby.open_games")), this.list, this.mine)));
    // the open games and the challenges come by the socket, now and at every change (no polling)
    this.onLobby = (e) => this.ctrl.setGames(e.detail);
    this.onChallenges = (e) => this.ctrl.setChallenges(e.detail);
    this.onPools = (e) => this.ctrl.setPools(e.detail);
    this.onSeeking = (e) => this.ctrl.setSeeking(e.detail);
    this.onPaired = (e) => this.ctrl.paired(e.detail);
    this.onMessage = (e) => { if (e.detail.type === "error") this.ctrl.refused(e.detail); };
    this.listeners = [["lobby", this.onLobby], ["challenges", this.onChallenges], ["pools", this.onPools],
      ["seeking", this.onSeeking], ["paired", this.onPaired], ["message", this.onMessage]];
    for (const [type, listener] of this.listeners) this.app.socket.addEventListener(type, listener);
    this.app.socket.followLobby(true);
    this.every(1000, () => this.showElapsed());
  }

  unmount() {
    super.unmount();
    this.ctrl.leave(); // leaving the page takes the player out of Play now's pool
    for (const [type, listener] of this.listeners) this.app.socket.removeEventListener(type, listener);
    this.app.socket.followLobby(false);
  }

  /** Play now: the pool's choices and the button; while waiting, the time waited and
   *  Cancel; how many wait in each pool. */
  playNowCard() {
    const kinds = [["match", t("game.kind_match")], ["single", t("game.kind_single")], ["money", t("game.kind_money")]];
    const bots = [["", t("lobby.play_now_no_bot")], ...[30, 60, 120].map((s) => [s, t("lobby.play_now_bot_after", { count: s })])];
    this.seekForm = h("form", { class: "stack", "data-form": "play-now" },
      h("div", { class: "form-grid" },
        field(t("lobby.kind"), select("kind", kinds, "match")),
        field(t("lobby.length"), select("length", PLAY_NOW_LENGTHS.map((n) => [n, String(n)]), 5)),
        field(t("lobby.clock"), select("clock", clockOptions(), "none")),
        field(t("lobby.play_now_bot"), select("bot_after", bots, "")),
        field(t("lobby.bot_level"), select("bot", [1, 2, 3, 4, 5].map((n) => [n, t(`lobby.bot_${n}`)]), 3))),
      check(t("lobby.play_now_rated"), "rated", this.app.me?.kind === "user"),
      h("p", { class: "muted small", "data-note": "play-now" }),
      h("p", { class: "muted small", "data-waiting-here": "" }),
      h("button", { type: "submit", class: "primary", "data-act": "play-now" }, t("lobby.play_now")));
    const form = this.seekForm;
    const control = (name) => /** @type {HTMLInputElement} */ (form.querySelector(`[name=${name}]`));
    const sync = () => {
      const guest = this.app.me?.kind !== "user";
      const money = control("kind").value === "money";
      control("length").disabled = control("kind").value !== "match";
      control("rated").disabled = guest || money;
      if (guest || money) control("rated").checked = false;
      control("bot").disabled = !control("bot_after").value;
      const note = /** @type {HTMLElement} */ (form.querySelector("[data-note=play-now]"));
      note.textContent = guest ? t("lobby.unrated_guest") : money ? t("game.unrated") : "";
      note.hidden = !note.textContent;
      this.showPlayNow();
    };
    form.addEventListener("change", sync);
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.ctrl.playNow(this.choice());
    });
    this.seekWaiting = h("div", { class: "stack", "data-seek": "waiting", "aria-live": "polite", hidden: true });
    this.poolList = h("div", { "data-pools": "" });
    queueMicrotask(sync);
    return h("section", { class: "card", "aria-labelledby": "play-now-title", "data-card": "play-now" },
      h("h2", { id: "play-now-title" }, t("lobby.play_now_title")),
      h("p", { class: "muted small" }, t("lobby.play_now_text")),
      this.seekForm, this.seekWaiting,
      h("h3", {}, t("lobby.play_now_pools")), this.poolList);
  }

  /** The pool the form chooses now. @returns {import("./lobby/ctrl.js").PlayNowChoice} */
  choice() {
    const data = new FormData(this.seekForm);
    const kind = String(data.get("kind"));
    const after = Number(data.get("bot_after")) || null;
    return { kind, length: kind === "match" ? Number(data.get("length")) : 1, clock: String(data.get("clock")),
      rated: kind !== "money" && data.get("rated") === "on", bot: after ? Number(data.get("bot")) : null, bot_after: after };
  }

  /** The Play now card: the form, or the waiting player's pool, time and Cancel. */
  showPlayNow() {
    if (!this.seekForm) return;
    const seek = this.ctrl.seek;
    this.seekForm.hidden = Boolean(seek);
    this.seekWaiting.hidden = !seek;
    if (seek) {
      const bot = seek.bot && seek.bot_after
        ? [h("p", { class: "muted small", "data-seek-bot": "" }, t("lobby.play_now_bot_then", { count: seek.bot_after, bot: t(`lobby.bot_${seek.bot}`) }))]
        : [];
      this.seekWaiting.replaceChildren(
        h("p", {}, h("strong", {}, t("lobby.play_now_waiting")), " ", h("span", { "data-elapsed": "" }, "")),
        h("p", { class: "muted small", "data-seek-pool": "" }, poolText(seek)),
        ...bot,
        h("div", {}, h("button", { type: "button", class: "danger", "data-act": "cancel-seek", onclick: () => this.ctrl.cancelSeek() }, t("common.cancel"))));
      this.showElapsed();
    } else {
      const here = this.seekForm.querySelector("[data-waiting-here]");
      const count = this.ctrl.waitingIn(this.choice());
      if (here) here.textContent = t("lobby.play_now_waiting_here", { count });
    }
    const pools = this.ctrl.pools ?? [];
    this.poolList.replaceChildren(pools.length
      ? h("ul", { class: "plain" }, pools.map((p) => h("li", { "data-pool": `${p.kind}-${p.length}-${p.clock}-${p.rated}` },
        poolText(p), " — ", h("strong", {}, t("lobby.play_now_count", { count: p.waiting })))))
      : h("p", { class: "empty" }, t("lobby.play_now_nobody")));
  }

  /** The time waited, as m:ss, by the server's clock. */
  showElapsed() {
    const seek = this.ctrl.seek;
    const out = this.seekWaiting?.querySelector("[data-elapsed]");
    if (!seek || !out) return;
    const seconds = Math.max(0, Math.floor(Date.now() / 1000 + (this.app.socket.serverOffset || 0) - seek.since));
    out.textContent = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
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

/** A pool in words: its kind, clock and whether rated. @param {{kind: string, length: number, clock: string, rated: boolean}} p */
function poolText(p) {
  return [kindText(p), t(`clock.kind_${p.clock}`), p.rated ? t("lobby.rated") : t("lobby.unrated")].join(" · ");
}

function tableHead() {
  return h("thead", {}, h("tr", {}, h("th", {}, t("lobby.player")), h("th", {}, t("lobby.game")), h("th", {}, h("span", { class: "sr-only" }, t("lobby.actions")))));
}
