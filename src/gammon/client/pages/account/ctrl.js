// @ts-check
// pages/account/ctrl.js — the controllers of a player's pages, no DOM (as the lobby's
// pages/lobby/ctrl.js): sign-in, registration and guests (SignInCtrl), the leaderboard
// (LeaderboardCtrl), a player's matches (HistoryCtrl) and the options (OptionsCtrl). Each
// holds what its page shows and does its actions through the api, navigate and notify it
// is given; the pages (pages/account.js) draw them when they say what changed.

import { t } from "../../i18n.js";

/** @typedef {import("../../round/types.js").Api} Api */
/** @typedef {import("../../wire.js").HistoryEntry} HistoryEntry */
/** @typedef {import("../../wire.js").LeaderboardEntry} LeaderboardEntry */
/** @typedef {import("../../wire.js").Options} Options */
/** @typedef {import("../../wire.js").UserView | null | undefined} Me */
/** @typedef {(text: string, options?: {error?: boolean}) => void} Notify */

/** What a refused sign-in or registration says, in the player's language where its reason
 *  is known, else in the server's words. @param {{code?: string, message: string}} err */
export function signInRefusal(err) {
  switch (err.code) {
    case "bad_credentials": return t("signin.bad_credentials");
    case "name_taken": return t("signin.name_taken");
    case "bad_name": return t("signin.bad_name");
    case "weak_password": return t("signin.weak_password");
    case "rate_limited": return t("signin.rate_limited");
    default: return err.message;
  }
}

/** @typedef {"login" | "register"} SignInForm */
/** What the sign-in page's controller needs of the page around it: `switchSession(call)`
 *  changes who is signed in (`call` talks to the server; the player is read again after
 *  it), `refreshMe` reads the player again, `signOut` signs out (a new guest follows).
 *  @typedef {{me: () => Me, api: Api, switchSession: (call: () => Promise<unknown>) => Promise<unknown>,
 *    refreshMe: () => Promise<unknown>, signOut: () => Promise<unknown>, navigate: (hash: string) => void,
 *    notify: Notify, current: () => boolean, changed: (part: "account" | SignInForm) => void}} SignInDeps */

export class SignInCtrl {
  /** @param {SignInDeps} deps */
  constructor(deps) {
    this.deps = deps;
    /** @type {Record<SignInForm, string>} what each form's last refusal said */
    this.errors = { login: "", register: "" };
  }

  /** Who is signed in here: a registered player, a guest, or no one yet. */
  get signedIn() {
    const me = this.deps.me();
    return me?.kind === "user" ? "user" : me ? "guest" : "none";
  }

  /** The page is shown. The session may have changed elsewhere (another tab): the server
   *  is asked who this is, and another account redraws the page, its forms empty. */
  start() {
    const before = this.deps.me()?.id;
    this.deps.refreshMe().then(() => {
      if (this.deps.me()?.id === before || !this.deps.current()) return;
      this.errors = { login: "", register: "" };
      this.deps.changed("account");
    }).catch(() => {});
  }

  /** Sign in (`login`) or register: welcomed, the lobby opens; refused, the form says why.
   *  @param {SignInForm} kind @param {string} name @param {string} password */
  async submit(kind, name, password) {
    try {
      await this.deps.switchSession(() => this.deps.api("POST", `/api/${kind}`, { name, password }));
      this.deps.notify(t("signin.welcome", { name: this.deps.me()?.name ?? "" }));
      this.deps.navigate("#/");
    } catch (err) {
      this.errors[kind] = signInRefusal(err);
      this.deps.changed(kind);
    }
  }

  /** Go on as a new guest: the lobby opens. */
  async guest() {
    await this.deps.switchSession(() => this.deps.api("POST", "/api/guest"));
    this.deps.navigate("#/");
  }

  signOut() {
    return this.deps.signOut();
  }
}

/** What the leaderboard's and the history's controllers need of the page around them.
 *  @typedef {{me: () => Me, api: Api, changed: () => void}} ListDeps */

export class LeaderboardCtrl {
  /** @param {ListDeps} deps */
  constructor(deps) {
    this.deps = deps;
    /** @type {LeaderboardEntry[] | null} the players by rating (null: not read yet) */
    this.rows = null;
    /** @type {string} why they could not be read */
    this.error = "";
  }

  async load() {
    try {
      this.rows = await this.deps.api("GET", "/api/leaderboard");
    } catch (err) {
      this.error = err.message;
    }
    this.deps.changed();
  }

  /** Whether `row` is the signed-in player's. @param {LeaderboardEntry} row */
  isMe(row) {
    return row.id === this.deps.me()?.id;
  }
}

/** One of a player's matches as the history lists it: the players ("…" for a seat still
 *  empty), the result from the player's side (won or lost, and the score; the winner's name
 *  in a match of others; the status while it is not over), and the links it offers.
 *  @typedef {{players: string, result: string, resume: string | null, replay: string,
 *    review: string | null, mat: string | null, sgf: string | null, dice: string | null}} HistoryLine */

export class HistoryCtrl {
  /** @param {string | undefined} name the player the route names; none: the signed-in one
   *  @param {ListDeps} deps */
  constructor(name, deps) {
    this.deps = deps;
    this.name = name || deps.me()?.name;
    /** @type {HistoryEntry[] | null} the player's matches (null: not read yet) */
    this.rows = null;
    /** @type {string} why they could not be read, in the player's language where known */
    this.error = "";
  }

  async load() {
    try {
      this.rows = await this.deps.api("GET", `/api/users/${encodeURIComponent(String(this.name))}/history`);
    } catch (err) {
      this.error = err.status === 404 ? t("history.no_player") : err.message;
    }
    this.deps.changed();
  }

  /** @param {HistoryEntry} r @returns {HistoryLine} */
  line(r) {
    const seat = this.name === undefined ? -1 : r.players.indexOf(this.name);
    let result = t(`history.status_${r.status}`);
    if (r.result) {
      const won = r.winner === seat;
      const winner = r.players[/** @type {number} */ (r.winner)];
      result = `${seat < 0 ? winner : won ? t("history.won") : t("history.lost")} ${r.result.score.join("–")}`;
    }
    const playing = r.status === "playing" || r.status === "open";
    const finished = r.status === "finished";
    const played = r.status !== "open";
    return {
      players: r.players.map((p) => p ?? "…").join(" – "), result,
      resume: playing ? `#/match/${r.id}` : null, replay: `#/replay/${r.id}`,
      review: finished ? `#/review/${r.id}` : null,
      mat: played ? `/api/games/${r.id}/export.mat` : null, sgf: played ? `/api/games/${r.id}/export.sgf` : null,
      dice: finished ? `#/fairness/${r.id}` : null,
    };
  }
}

/** The options a box turns on or off. */
export const OPTION_FLAGS = /** @type {const} */ (["confirm_turn", "auto_roll", "auto_bearoff", "tap_longest", "flip", "numbering", "sound"]);

/** What the options page's controller needs of the page around it: the player's options
 *  and their saving (on the server), the language and its setting, `languageChanged` (the
 *  page's chrome and the page drawn again in the new language).
 *  @typedef {{options: () => Options, saveOptions: (patch: Partial<Options>) => Promise<unknown>,
 *    language: () => string, setLanguage: (lang: string) => Promise<unknown>,
 *    languageChanged: () => void, notify: Notify}} OptionsDeps */

export class OptionsCtrl {
  /** @param {OptionsDeps} deps */
  constructor(deps) {
    this.deps = deps;
  }

  /** The options as the form starts: the player's, in the language shown. */
  get options() {
    return this.deps.options();
  }

  get language() {
    return this.deps.language();
  }

  /** The options the form says (`get`: a field's value by its name; a box ticked is "on").
   *  @param {(name: string) => unknown} get @returns {Options} */
  fromForm(get) {
    /** @type {Record<string, unknown>} */
    const patch = {};
    for (const key of OPTION_FLAGS) patch[key] = get(key) === "on";
    patch.graphics = get("graphics");
    patch.language = get("language");
    return /** @type {Options} */ (patch);
  }

  /** Save the options; a new language is set and the page drawn in it before "saved" is
   *  said. @param {Options} patch */
  async save(patch) {
    await this.deps.saveOptions(patch);
    if (patch.language !== this.deps.language()) {
      await this.deps.setLanguage(String(patch.language));
      this.deps.languageChanged();
    }
    this.deps.notify(t("options.saved"));
  }
}
