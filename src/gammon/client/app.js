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
//   #/puzzles[/ID]     puzzles made from real blunders, rated (the next one, or one by id)
//   #/mistakes         the player's own mistakes as a deck of flashcards (spaced repetition)
//   #/explorer         any position's plays at a depth, and rollouts of the best
//   #/profile[/NAME]   a player's rating and error rate over time, results, opponents
//   #/tournaments[/ID] the tournaments and a new one's form; one tournament (#/tournament/ID?key=
//                      too, as a private one's invite link writes it)
//   #/options          the player's options (stored on the server)
//
// The pages are in pages/ (the lobby, the account pages, the replay, the dice check, the
// puzzles, the explorer, the profile, the tournaments), match.js (with round/) and review.js; this module routes to them.

import { pageTitle } from "./attention.js";
import { apply as applyI18n, browserLanguage, language, LANGUAGES, setLanguage, t } from "./i18n.js";
import { MatchPage } from "./match.js";
import { api, Socket } from "./net.js";
import { SignInPage, LeaderboardPage, HistoryPage, OptionsPage } from "./pages/account.js";
import { FairnessPage } from "./pages/fairness.js";
import { ExplorerPage } from "./pages/explorer.js";
import { LobbyPage } from "./pages/lobby.js";
import { ProfilePage } from "./pages/profile.js";
import { PuzzlesPage } from "./pages/puzzles.js";
import { NotFoundPage, select } from "./pages/page.js";
import { ReplayPage } from "./pages/replay.js";
import { TournamentPage } from "./pages/tournament.js";
import { TournamentsPage } from "./pages/tournaments.js";
import { ReviewPage } from "./review.js";
import { h, setSound, sound, toast } from "./ui.js";

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
    const moved = key !== this.routeKey; // another page, not the same one drawn again
    this.routeKey = key;
    this.page?.unmount?.();
    this.page = null;
    for (const a of /** @type {NodeListOf<HTMLAnchorElement>} */ (document.querySelectorAll("header nav a"))) {
      const current = a.dataset.route === (name === "tournament" ? "tournaments" : name || "lobby");
      if (current) a.setAttribute("aria-current", "page");
      else a.removeAttribute("aria-current");
    }
    pageTitle("gammon");
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
      puzzles: () => new PuzzlesPage(this, arg),
      mistakes: () => new PuzzlesPage(this, "", { deck: true }),
      explorer: () => new ExplorerPage(this),
      profile: () => new ProfilePage(this, arg),
      tournaments: () => (arg ? new TournamentPage(this, arg) : new TournamentsPage(this)),
      tournament: () => new TournamentPage(this, arg),
      options: () => new OptionsPage(this),
    };
    const make = pages[name] || (() => new NotFoundPage(this));
    this.page = make();
    this.page.mount(this.main);
    if (moved) window.scrollTo(0, 0); // a new page starts at its top (not where the last was scrolled)
    if (document.activeElement === document.body) this.main.focus({ preventScroll: true });
  }
}

new App().start();
