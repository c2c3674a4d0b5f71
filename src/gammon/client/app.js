// @ts-check
// app.js — the client's entry: the session, options, the router and the pages.
//
// Routes (hash based, so the server serves one index.html):
//   #/                 lobby: open games, create a game, play the computer
//   #/signin           sign in, register, or go on as a guest
//   #/match/ID         a match: play it, join it, or watch it
//   #/replay/ID        step through a match's moves; .mat download
//   #/review/ID        a finished match with the engine's analysis (review.js)
//   #/history[/NAME]   a player's matches
//   #/leaderboard      players by rating
//   #/fairness[/ID]    dice statistics, and a match's dice checked in the browser
//   #/options          the player's options (stored on the server)

import { apply as applyI18n, browserLanguage, language, LANGUAGES, setLanguage, t } from "./i18n.js";
import { MatchPage } from "./match.js";
import { api, Socket } from "./net.js";
import { moveRows, renderMoveList } from "./movelist.js";
import { frameAt, matchFrames } from "./replay.js";
import { FrameStepper } from "./stepper.js";
import { ReviewPage } from "./review.js";
import { verifyRecord } from "./fairness.js";
import { downloadLink, fmtDate, h, kindText, setSound, sound, toast } from "./ui.js";

const DEFAULT_OPTIONS = {
  confirm_turn: false, auto_roll: false, graphics: "high", flip: false, auto_bearoff: false,
  sound: true, language: "en", numbering: true, tap_longest: false,
};

class App {
  constructor() {
    this.me = null;
    this.options = { ...DEFAULT_OPTIONS };
    this.socket = new Socket();
    this.page = null;
    this.main = /** @type {HTMLElement} */ (document.getElementById("main")); // index.html's
  }

  async start() {
    let stored = null;
    try { stored = localStorage.getItem("gammon.language"); } catch { /* private mode */ }
    await setLanguage(stored || browserLanguage());
    try {
      await this.refreshMe();
    } catch (err) {
      this.main.replaceChildren(h("p", { class: "error-text" }, t("error.server_down")));
    }
    if (!stored && this.options.language && this.options.language !== "en" && this.options.language in LANGUAGES) {
      await setLanguage(this.options.language);
    }
    setSound(this.options.sound);
    this.buildChrome();
    this.socket.addEventListener("status", (e) => {
      const status = /** @type {CustomEvent<string>} */ (e).detail;
      const conn = /** @type {HTMLElement} */ (document.getElementById("conn"));
      conn.dataset.status = status;
      conn.title = t(`conn.${status}`);
      conn.setAttribute("aria-label", t(`conn.${status}`));
    });
    this.socket.connect();
    window.addEventListener("hashchange", () => this.route());
    this.route();
    // for the browser tests and the curious: the socket, and the page on screen
    /** @type {any} */ (window).gammon = { app: this, socket: this.socket, sound };
  }

  async refreshMe() {
    const data = await api("GET", "/api/me");
    this.me = data.user;
    this.options = { ...DEFAULT_OPTIONS, ...(data.options || {}) };
    this.renderUser();
    return data;
  }

  /** Change who is signed in: `call` talks to the server. The socket is closed first: the
   *  server closes the old session's socket, and a reconnect made before the new cookie is
   *  set would carry the revoked one and come back as yet another guest. */
  async switchSession(call) {
    this.socket.close();
    try {
      return await call();
    } finally {
      await this.refreshMe().catch(() => {});
      this.socket.connect();
    }
  }

  async saveOptions(patch) {
    this.options = { ...this.options, ...patch };
    setSound(this.options.sound);
    try {
      this.options = { ...DEFAULT_OPTIONS, ...(await api("PUT", "/api/me/options", this.options)) };
    } catch (err) {
      toast(t("error.save_options"), { error: true });
    }
  }

  buildChrome() {
    // the page's chrome (index.html)
    const select = /** @type {HTMLSelectElement} */ (document.getElementById("language"));
    select.replaceChildren(...Object.entries(LANGUAGES).map(([code, name]) => h("option", { value: code, selected: code === language() }, name)));
    select.onchange = async () => {
      await setLanguage(select.value);
      this.saveOptions({ language: select.value });
      this.renderChrome();
      this.route(true);
    };
    const toggle = /** @type {HTMLElement} */ (document.querySelector(".menu-toggle"));
    const nav = /** @type {HTMLElement} */ (document.getElementById("nav"));
    toggle.onclick = () => {
      const open = !nav.classList.contains("open");
      nav.classList.toggle("open", open);
      toggle.setAttribute("aria-expanded", String(open));
    };
    nav.addEventListener("click", () => { nav.classList.remove("open"); toggle.setAttribute("aria-expanded", "false"); });
    /** @type {HTMLElement} */ (document.getElementById("nav-signout")).onclick = () => this.signOut();
    this.renderChrome();
  }

  renderChrome() {
    applyI18n(document);
    /** @type {HTMLSelectElement} */ (document.getElementById("language")).value = language();
    this.renderUser();
  }

  /** Sign out (a new guest session follows), from the navigation bar or the sign-in page. */
  async signOut() {
    await this.switchSession(() => api("POST", "/api/logout"));
    toast(t("signin.signed_out"));
    if (this.page instanceof SignInPage) this.route(true);
  }

  renderUser() {
    const user = this.me?.kind === "user";
    const signIn = document.getElementById("nav-signin");
    const signOut = document.getElementById("nav-signout");
    if (signIn) signIn.hidden = user;
    if (signOut) signOut.hidden = !user;
    const link = document.getElementById("user-link");
    if (!link || !this.me) return;
    const rating = this.me.kind === "user" ? ` · ${Math.round(this.me.rating)}` : "";
    link.textContent = `${this.me.name}${rating}`;
    link.title = this.me.kind === "guest" ? t("signin.guest_hint") : t("signin.signed_in_as", { name: this.me.name });
  }

  navigate(hash) {
    if (location.hash === hash) this.route(true);
    else location.hash = hash;
  }

  route(force = false) {
    const hash = location.hash.replace(/^#\/?/, "");
    const [name, ...rest] = hash.split("/");
    const arg = rest.map(decodeURIComponent).join("/");
    const key = `${name}/${arg}`;
    if (!force && key === this.routeKey) return;
    this.routeKey = key;
    this.page?.unmount?.();
    this.page = null;
    for (const a of /** @type {NodeListOf<HTMLAnchorElement>} */ (document.querySelectorAll("header nav a"))) {
      const current = a.dataset.route === (name || "lobby");
      if (current) a.setAttribute("aria-current", "page");
      else a.removeAttribute("aria-current");
    }
    document.title = "gammon";
    const pages = {
      "": () => new LobbyPage(this),
      lobby: () => new LobbyPage(this),
      signin: () => new SignInPage(this),
      match: () => new MatchPage(this, arg),
      watch: () => new MatchPage(this, arg),
      replay: () => new ReplayPage(this, arg),
      review: () => new ReviewPage(this, arg),
      history: () => new HistoryPage(this, arg),
      leaderboard: () => new LeaderboardPage(this),
      fairness: () => new FairnessPage(this, arg),
      options: () => new OptionsPage(this),
    };
    const make = pages[name] || (() => new NotFoundPage(this));
    this.page = make();
    this.page.mount(this.main);
    if (document.activeElement === document.body) this.main.focus({ preventScroll: true });
  }
}

// -- pages -------------------------------------------------------------------------------

class Page {
  constructor(app) { this.app = app; this.timers = []; }
  unmount() { for (const id of this.timers) clearInterval(id); }
  every(ms, fn) { this.timers.push(setInterval(fn, ms)); }
}

class NotFoundPage extends Page {
  mount(main) {
    main.replaceChildren(h("h1", {}, t("notfound.title")), h("p", {}, h("a", { href: "#/" }, t("notfound.back"))));
  }
}

function field(label, control) {
  return h("label", { class: "field" }, h("span", {}, label), control);
}

function check(label, name, checked = false) {
  return h("label", { class: "check" }, h("input", { type: "checkbox", name, checked }), h("span", {}, label));
}

function select(name, options, value) {
  return h("select", { name }, options.map(([v, label]) => h("option", { value: v, selected: String(v) === String(value) }, label)));
}

function clockOptions() {
  return [["none", t("clock.kind_none")], ["italian", t("clock.kind_italian")],
    ["italian_per_point", t("clock.kind_italian_per_point")], ["polish", t("clock.kind_polish")]];
}

/** A player's name in a list of games: the name, the BOT mark of a program, the rating of a
 *  registered player. */
function playerCell(user) {
  return [h("strong", {}, user?.name ?? "?"), " ", user?.bot ? botMark() : null,
    " ", h("span", { class: "muted small" }, user?.kind === "user" ? Math.round(user.rating) : "")];
}

function botMark() {
  return h("span", { class: "bot-mark", "data-bot": "true" }, t("board.bot"));
}

/** A game's rules beside its kind: the cube, the clock. */
function rulesText(g) {
  return [g.cube && g.kind !== "single" ? t("lobby.cube") : null, g.clock !== "none" ? t(`clock.kind_${g.clock}`) : null].filter(Boolean).join(", ");
}

/** Whether a game between players `a` and `b` will be rated (the server decides, as it
 *  does at the join: a match or single game between two registered players). */
function ratedBetween(g, a, b) {
  return g.kind !== "money" && a?.kind === "user" && b?.kind === "user";
}

class LobbyPage extends Page {
  constructor(app) {
    super(app);
    // set when mounted
    /** @type {Set<string>} */
    this.withdrawn;
  }

  mount(main) {
    this.list = h("div", { "aria-live": "polite" }, h("p", { class: "muted" }, t("common.loading")));
    this.mine = h("div");
    this.challengeTitle = h("h2", { id: "challenges-title", tabindex: -1 }, t("lobby.challenges_title"));
    this.challengeList = h("div", { "aria-live": "polite" });
    this.challengeCard = h("section", { class: "card", "aria-labelledby": "challenges-title", "data-card": "challenges", hidden: true },
      this.challengeTitle, this.challengeList);
    this.sent = null; // the challenges this player made, as last shown (null: none shown yet)
    this.received = null;
    this.withdrawn = new Set(); // the challenges withdrawn here (not "declined" when they go)
    main.replaceChildren(
      h("h1", {}, t("lobby.title")),
      h("div", { class: "grid" },
        this.challengeCard,
        this.botCard(),
        this.createCard(),
        h("section", { class: "card", "aria-labelledby": "open-title" },
          h("h2", { id: "open-title" }, t("lobby.open_games")), this.list, this.mine)));
    // the open games and the challenges come by the socket, now and at every change (no polling)
    this.onLobby = (e) => this.show(e.detail);
    this.onChallenges = (e) => this.showChallenges(e.detail);
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
        await this.create({ bot: Number(data.get("bot")), kind: data.get("kind"), length: Number(data.get("length")) || 1, cube: true });
      } catch (err) { toast(this.refusal(err), { error: true }); }
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
        await this.create({
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
        showError(this.refusal(err, name), aboutOpponent ? opponent : null);
      }
    });
    return h("section", { class: "card", "aria-labelledby": "create-title" }, h("h2", { id: "create-title" }, t("lobby.create_title")), form);
  }

  /** Create a game (refused: throws). A challenge stays in the lobby, waiting for its
   *  player to answer; any other game opens at once. */
  async create(body) {
    if (body.kind !== "match") body.length = 1;
    const info = await api("POST", "/api/games", body);
    if (body.opponent) toast(t("lobby.challenge_sent", { name: body.opponent }));
    else this.app.navigate(info.invite.replace(/^\//, "")); // with the key of a private match
  }

  /** What to tell of a refused game: in the player's language where the reason is known. */
  refusal(err, opponent = "") {
    if (err.code === "too_many_games") return t("error.too_many_games");
    if (opponent && err.code === "not_found") return t("lobby.error_no_player", { name: opponent });
    if (opponent && err.code === "own_game") return t("lobby.error_yourself");
    return err.message;
  }

  show(games) {
    const me = this.app.me?.id;
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
          : h("button", { type: "button", class: "primary", "data-act": "join", onclick: () => this.join(g.id) }, t("lobby.join"))));
    });
    this.list.replaceChildren(h("table", { class: "stackable" }, tableHead(), h("tbody", {}, rows)));
  }

  /** The games reserved for this player (`received`: challenges and rematches to answer)
   *  and by them for another (`sent`: waiting for that player). */
  showChallenges({ received, sent }) {
    const me = this.app.me;
    if (this.shownFor !== me?.id) { // another account signed in here: nothing of theirs was shown
      this.shownFor = me?.id;
      this.received = this.sent = null;
    }
    if (this.received) {
      for (const g of received) {
        if (!this.received.some((old) => old.id === g.id)) toast(t("lobby.challenged_by", { name: g.creator?.name ?? "?" }));
      }
    }
    if (this.sent) {
      for (const old of this.sent) if (!sent.some((g) => g.id === old.id)) this.answered(old);
    }
    this.received = received;
    this.sent = sent;
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
                onclick: () => this.join(g.id) }, t("lobby.accept")),
              h("button", { type: "button", "data-act": "decline", "aria-label": t("lobby.decline_label", { name }),
                onclick: (e) => this.answer(e.currentTarget, "POST", `/api/games/${g.id}/decline`, t("lobby.declined")) }, t("lobby.decline")))));
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
                onclick: (e) => this.withdraw(e.currentTarget, g) }, t("lobby.withdraw")))));
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

  /** Decline or withdraw a challenge from its row's `button` (whether it was done); the
   *  server's `challenges` message then takes the row away. */
  async answer(button, method, path, done) {
    // aria-disabled, not disabled: a disabled button would lose the keyboard's focus
    if (button.getAttribute("aria-disabled") === "true") return false;
    button.setAttribute("aria-disabled", "true");
    try {
      await api(method, path);
      toast(done);
      return true;
    } catch (err) {
      button.removeAttribute("aria-disabled");
      toast(err.message, { error: true });
      return false;
    }
  }

  async withdraw(button, challenge) {
    if (button.getAttribute("aria-disabled") === "true") return; // under way
    this.withdrawn.add(challenge.id);
    if (await this.answer(button, "DELETE", `/api/games/${challenge.id}`, t("lobby.withdrawn"))) return;
    // refused: taken (or declined) meanwhile, and maybe already gone from the list
    this.withdrawn.delete(challenge.id);
    if (!this.sent.some((g) => g.id === challenge.id)) this.answered(challenge);
  }

  /** A challenge of this player's is no longer waiting: taken (the match opens), or
   *  declined (said so) — unless it was withdrawn here. */
  async answered(challenge) {
    if (this.withdrawn.has(challenge.id)) return;
    let status = "cancelled";
    try { status = (await api("GET", `/api/games/${challenge.id}`)).info.status; } catch { /* gone: cancelled */ }
    if (this.app.page !== this) return;
    if (status === "playing") this.app.navigate(`#/match/${challenge.id}`);
    else if (status === "cancelled") toast(t("lobby.challenge_declined", { name: challenge.opponent?.name ?? "?" }));
  }

  async join(id) {
    try {
      await api("POST", `/api/games/${id}/join`, {});
      this.app.navigate(`#/match/${id}`);
    } catch (err) { toast(err.message, { error: true }); }
  }
}

function tableHead() {
  return h("thead", {}, h("tr", {}, h("th", {}, t("lobby.player")), h("th", {}, t("lobby.game")), h("th", {}, h("span", { class: "sr-only" }, t("lobby.actions")))));
}

class SignInPage extends Page {
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

class LeaderboardPage extends Page {
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

class HistoryPage extends Page {
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

class ReplayPage extends Page {
  /** `arg`: ID, ID/V (at the move of event version V), either with ?key=KEY (a private
   *  match's invite key). */
  constructor(app, arg) {
    super(app);
    const [path, key] = arg.split("?key=");
    const [id, at] = path.split("/");
    this.id = id;
    this.key = key || null;
    this.query = this.key ? `?key=${encodeURIComponent(this.key)}` : "";
    this.at = at !== undefined && /^\d+$/.test(at) ? Number(at) : null;
    /** @type {import("./wire.js").InfoView} the match's info, read before anything is drawn */
    this.info;
    /** @type {FrameStepper} the board that steps through the frames (when mounted) */
    this.stepper;
    /** @type {(event: KeyboardEvent) => void} */
    this.keys;
  }

  mount(main) {
    const btn = (label, fn, act) => h("button", { type: "button", title: label, "aria-label": label, "data-act": act, onclick: fn }, label);
    this.title = h("h1", {}, t("replay.title"));
    this.moveList = h("div", { class: "movelist", role: "list", "aria-label": t("match.log"), tabindex: 0 });
    const stepper = new FrameStepper({ options: () => this.app.options, moveList: this.moveList });
    this.stepper = stepper;
    main.replaceChildren(this.title,
      h("div", { class: "replay" },
        h("div", { class: "replay-main" },
          ...stepper.elements,
          h("div", { class: "row", style: "justify-content:center" },
            btn(t("match.flip"), () => { this.app.saveOptions({ flip: !this.app.options.flip }); this.show(stepper.index); }, "flip"),
            btn(t("match.switch_side"), () => { stepper.bottom = 1 - stepper.bottom; this.show(stepper.index); }, "side"),
            downloadLink(`/api/games/${this.id}/export.mat${this.query}`, `${this.id}.mat`, t("history.download")),
            downloadLink(`/api/games/${this.id}/export.sgf${this.query}`, `${this.id}.sgf`, t("history.download_sgf")),
            h("a", { class: "button", href: `#/match/${this.id}${this.query}` }, t("replay.live")),
            this.reviewLink = h("a", { class: "button", href: `#/review/${this.id}${this.query}`, "data-act": "review", hidden: true }, t("history.review")),
            h("a", { class: "button", href: `#/fairness/${this.id}` }, t("history.check_dice")))),
        h("section", { class: "card replay-side" }, h("h2", {}, t("match.log")), this.moveList)));
    this.keys = stepper.keys();
    document.addEventListener("keydown", this.keys);
    // the match's events: subscribing from version 0 sends them all
    this.feed = this.app.socket.feed(this.id, 0, this.key);
    this.onState = () => this.load();
    this.feed.addEventListener("state", this.onState);
    api("GET", `/api/games/${this.id}${this.query}`).then((state) => { this.info = state.info; this.load(); }).catch((err) => {
      stepper.caption.textContent = err.status === 404 ? t("replay.not_found") : err.message;
    });
  }

  unmount() {
    document.removeEventListener("keydown", this.keys);
    this.feed?.removeEventListener("state", this.onState);
    this.app.socket.drop(this.id);
  }

  load() {
    if (!this.info) return;
    const info = this.info;
    this.title.textContent = `${info.seats.map((s) => s?.name ?? "…").join(" – ")} · ${kindText(info)}`;
    this.reviewLink.hidden = info.status !== "finished";
    const name = (seat) => info.seats[seat]?.name ?? "?";
    const anew = info.winner_rolls_anew ?? null;
    const events = this.feed.events;
    const stepper = this.stepper;
    const atEnd = !stepper.frames.length || stepper.index >= stepper.frames.length - 1;
    stepper.setFrames(matchFrames(events, info), info);
    renderMoveList(this.moveList, moveRows(events, name, anew), {
      href: (v) => `#/replay/${this.id}/${v}${this.query}`,
      onPick: (v) => this.jump(v),
    });
    if (!stepper.frames.length) { stepper.caption.textContent = t("replay.empty"); return; }
    if (this.at !== null && !this.loadedOnce) this.jump(this.at, false);
    else this.show(atEnd && this.loadedOnce ? stepper.frames.length - 1 : stepper.index);
    this.loadedOnce = true;
  }

  /** Show the position after the event of version `v` (a move clicked in the list). */
  jump(v, remember = true) {
    this.show(frameAt(this.stepper.frames, v));
    if (remember) history.replaceState(null, "", `#/replay/${this.id}/${v}${this.query}`);
  }

  show(i) {
    this.stepper.show(i);
  }
}

class FairnessPage extends Page {
  constructor(app, id) { super(app); this.id = id; }

  async mount(main) {
    const stats = h("div", {}, h("p", { class: "muted" }, t("common.loading")));
    const result = h("div", { "aria-live": "polite" });
    const input = h("input", { type: "text", name: "match", value: this.id || "", "aria-label": t("fairness.match_id"), placeholder: t("fairness.match_id") });
    const form = h("form", { class: "row" }, input, h("button", { type: "submit", class: "primary" }, t("fairness.check")));
    form.addEventListener("submit", (e) => { e.preventDefault(); this.check(input.value.trim(), result); });
    main.replaceChildren(h("h1", {}, t("fairness.title")),
      h("div", { class: "grid" },
        h("section", { class: "card stack" }, h("h2", {}, t("fairness.check_title")), h("p", { class: "muted small" }, t("fairness.explain")), form, result),
        h("section", { class: "card" }, h("h2", {}, t("fairness.stats_title")), stats)));
    if (this.id) this.check(this.id, result);
    try {
      const data = await api("GET", "/api/dice-stats");
      this.renderStats(stats, data);
    } catch (err) { stats.replaceChildren(h("p", { class: "error-text" }, err.message)); }
  }

  renderStats(box, data) {
    const total = data.dice || 0;
    if (!total) { box.replaceChildren(h("p", { class: "empty" }, t("fairness.no_dice"))); return; }
    const expected = total / 6;
    const max = Math.max(...data.faces, expected) * 1.1;
    let chi = 0;
    for (const n of data.faces) chi += (n - expected) ** 2 / expected;
    const bars = h("div", { class: "bars", role: "table", "aria-label": t("fairness.faces") });
    data.faces.forEach((n, i) => {
      const track = h("div", { class: "bar-track", role: "cell" }, h("div", { class: "bar-fill", style: `width:${(100 * n) / max}%` }),
        h("div", { class: "bar-expected", style: `left:${(100 * expected) / max}%`, title: t("fairness.expected") }));
      bars.append(h("strong", { role: "rowheader" }, String(i + 1)), track, h("span", { class: "num", role: "cell" }, `${n} · ${((100 * n) / total).toFixed(1)}%`));
    });
    // 5 degrees of freedom: 11.07 is the 95% point of the chi-squared distribution
    const fine = chi < 11.07;
    box.replaceChildren(h("p", { class: "muted small" }, t("fairness.dice_count", { count: total })), bars,
      h("p", {}, t("fairness.chi", { chi: chi.toFixed(2) }), " ", h("span", { class: `verdict ${fine ? "ok" : "bad"}` }, fine ? t("fairness.uniform") : t("fairness.suspicious"))));
  }

  async check(id, box) {
    if (!id) return;
    box.replaceChildren(h("p", { class: "muted" }, t("common.loading")));
    try {
      const record = await api("GET", `/api/games/${encodeURIComponent(id)}/fairness`);
      const lines = [h("p", {}, t("fairness.commitment"), h("br"), h("code", { class: "hash" }, record.seed_hash))];
      if (!record.server_seed) {
        lines.push(h("p", { class: "verdict" }, t("fairness.not_revealed")));
        box.replaceChildren(...lines);
        return;
      }
      lines.push(h("p", {}, t("fairness.seed"), h("br"), h("code", { class: "hash" }, record.server_seed)));
      const check = await verifyRecord(record);
      const ok = !check.problems.length;
      lines.push(h("p", { class: `verdict ${ok ? "ok" : "bad"}`, "data-verdict": ok ? "ok" : "bad" },
        ok ? t("fairness.verified", { count: check.count }) : t("fairness.failed")));
      for (const p of check.problems) lines.push(h("p", { class: "error-text small" }, p));
      box.replaceChildren(...lines);
    } catch (err) {
      box.replaceChildren(h("p", { class: "error-text" }, err.status === 404 ? t("replay.not_found") : err.message));
    }
  }
}

class OptionsPage extends Page {
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

new App().start();
