// @ts-check
// pages/tournaments/ctrl.js — the tournaments' controllers, no DOM (as the lobby's
// pages/lobby/ctrl.js): the list of public tournaments and the new tournament's settings
// (TournamentsCtrl), and one tournament (TournamentCtrl): its detail read again every few
// seconds while it registers or runs, the player's actions (register, withdraw, start, the
// organiser's bots, a line in its chat), the knockout bracket as columns of rounds, the
// matches in play, an arena's streaks, the chat's lines new since those drawn. The pages (pages/tournaments.js, pages/tournament.js) draw them when they
// say what changed.

import { t } from "../../i18n.js";

/** @typedef {import("../../round/types.js").Api} Api */
/** @typedef {import("../../wire.js").TournamentView} TournamentView */
/** @typedef {import("../../wire.js").TournamentListView} TournamentListView */
/** @typedef {import("../../wire.js").TournamentDetailView} TournamentDetailView */
/** @typedef {import("../../wire.js").TournamentPairingView} TournamentPairingView */
/** @typedef {import("../../wire.js").NewTournament} NewTournament */
/** @typedef {import("../../wire.js").TournamentChatLineView} ChatLine */
/** @typedef {import("../../wire.js").UserView | null | undefined} Me */
/** A side of a pairing: the player's id and name (null: a bye, or not known yet).
 *  @typedef {{id: number, name: string} | null} Side */
/** A pairing as the page shows it: both players by name, the winner's side (0, 1 or null).
 *  @typedef {{board: number, first: Side, second: Side, match: string | null,
 *    winner: 0 | 1 | null, reason: TournamentPairingView["reason"], pending: boolean}} Slot */
/** A round of the bracket: its number and its pairings (a round not paired yet: empty slots).
 *  @typedef {{round: number, slots: Slot[], paired: boolean}} Column */

export const FORMATS = /** @type {const} */ (["knockout", "swiss", "arena"]);

/** How often a tournament's page reads it again while it registers or runs (ms). */
export const REFRESH_MS = 3000;

/** The refusals the client says in the player's language (tournament.error_CODE). */
const REFUSALS = ["unauthenticated", "not_organiser", "already_registered", "not_registered",
  "registration_closed", "tournament_full", "not_enough_players", "already_started",
  "not_eligible", "not_found", "rate_limited", "busy", "not_a_player"];

/** A refusal in the player's language where its code is known, else the server's words.
 *  @param {any} err */
export function refusal(err) {
  return REFUSALS.includes(err?.code) ? t(`tournament.error_${err.code}`) : String(err?.message || err);
}

/** A chat line's identity, to tell the lines drawn from those new. @param {ChatLine} l */
const chatKey = (l) => JSON.stringify([l.at, l.from, l.text]);

/** The chat's lines to draw, given the keys of those drawn (the server sends the last 50):
 *  those after the last drawn, or all of them (`reset`) when it is no longer among them.
 *  Appending only the new ones keeps a live region from reading the whole chat again.
 *  @param {string[]} drawn @param {ChatLine[]} lines
 *  @returns {{reset: boolean, added: ChatLine[], keys: string[]}} */
export function chatAdded(drawn, lines) {
  const keys = lines.map(chatKey);
  const last = drawn.length ? keys.lastIndexOf(drawn[drawn.length - 1]) : -1;
  return { reset: drawn.length > 0 && last < 0, added: lines.slice(last + 1), keys };
}

/** The route's argument (`ID` or `ID?key=KEY`, as the invite link writes it).
 *  @param {string} arg @returns {{id: string, key: string}} */
export function parseRoute(arg) {
  const [id, query = ""] = String(arg || "").split("?");
  return { id, key: new URLSearchParams(query).get("key") || "" };
}

/** The new tournament's body from the form's values (strings, as a form gives them):
 *  `starts_at` a local date and time ("" to start it by hand), `duration` an arena's minutes.
 *  @param {Record<string, string | boolean>} f @returns {NewTournament} */
export function newTournament(f) {
  const format = /** @type {NewTournament["format"]} */ (String(f.format));
  /** @type {NewTournament} */
  const body = {
    name: String(f.name || "").trim(), format, length: Number(f.length || 3),
    clock: /** @type {NewTournament["clock"]} */ (String(f.clock || "none")),
    rated: !!f.rated, private: !!f.private, max_players: Number(f.max_players || 64),
    starts_at: f.starts_at ? new Date(String(f.starts_at)).getTime() / 1000 : null,
    rounds: format === "swiss" ? Number(f.rounds || 5) : null,
    duration: format === "arena" ? Math.round(Number(f.duration || 60) * 60) : null,
  };
  return body;
}

export class TournamentsCtrl {
  /** @param {{api: Api, me: () => Me, navigate: (hash: string) => void, changed: () => void}} deps */
  constructor(deps) {
    this.deps = deps;
    /** @type {TournamentListView | null} */ this.list = null;
    /** @type {string} what went wrong, in the player's language ("" nothing) */ this.error = "";
    this.busy = false;
  }

  /** Whether the player may organise one (a registered player). */
  get mayCreate() { return this.deps.me()?.kind === "user"; }

  async load() {
    try {
      this.list = await this.deps.api("GET", "/api/tournaments");
      this.error = "";
    } catch (err) {
      this.error = refusal(err);
    }
    this.deps.changed();
  }

  /** Create the tournament of the form's values, then open its page (a private one with
   *  its key, so the link the page shows is the invite). @param {Record<string, string | boolean>} fields */
  async create(fields) {
    if (this.busy) return false;
    this.busy = true;
    this.error = "";
    try {
      /** @type {TournamentDetailView} */
      const made = await this.deps.api("POST", "/api/tournaments", newTournament(fields));
      const key = made.invite ? parseRoute(made.invite.split("/").pop() || "").key : "";
      this.deps.navigate(`#/tournaments/${made.tournament.id}${key ? `?key=${encodeURIComponent(key)}` : ""}`);
      return true;
    } catch (err) {
      this.error = refusal(err);
      this.deps.changed();
      return false;
    } finally {
      this.busy = false;
    }
  }
}

export class TournamentCtrl {
  /** @param {string} arg the route's `ID[?key=KEY]`
   *  @param {{api: Api, me: () => Me, changed: () => void}} deps */
  constructor(arg, deps) {
    const { id, key } = parseRoute(arg);
    this.id = id;
    this.key = key;
    this.deps = deps;
    /** @type {TournamentDetailView | null} */ this.detail = null;
    /** @type {string} the last read's JSON: a read with nothing new draws nothing */
    this.seen = "";
    /** @type {string} what went wrong, in the player's language ("" nothing) */ this.error = "";
    this.busy = false;
  }

  /** An API path of this tournament (`suffix`: "/register", …), with the invite key. @param {string} [suffix] */
  path(suffix = "") {
    return `/api/tournaments/${encodeURIComponent(this.id)}${suffix}${this.key ? `?key=${encodeURIComponent(this.key)}` : ""}`;
  }

  /** The standings as CSV (a link). */
  get csvHref() { return this.path("/results.csv"); }

  get tournament() { return this.detail?.tournament ?? null; }

  /** Whether it may still change (read it again every REFRESH_MS). */
  get live() {
    const s = this.tournament?.state;
    return !this.detail ? !this.error : s === "registering" || s === "running";
  }

  /** Read it; `changed` only when something changed (or on the first read). */
  async load() {
    try {
      this.show(await this.deps.api("GET", this.path()));
    } catch (err) {
      if (this.detail && err?.status !== 404) return; // the last read stays; the next one tries again
      this.error = refusal(err);
      this.deps.changed();
    }
  }

  /** @param {TournamentDetailView} detail */
  show(detail) {
    const json = JSON.stringify(detail);
    this.error = "";
    if (json === this.seen) return;
    this.seen = json;
    this.detail = detail;
    this.deps.changed();
  }

  /** The player's entry (null: not entered). */
  get entry() {
    const me = this.deps.me();
    return this.detail?.entries.find((e) => e.id === me?.id) ?? null;
  }

  /** Whether the player is entered and has not withdrawn. */
  get entered() { return !!this.entry && !this.entry.withdrawn; }

  get isOrganiser() {
    const me = this.deps.me();
    return !!me && me.kind === "user" && me.name === this.tournament?.organiser;
  }

  get mayRegister() {
    const tm = this.tournament;
    return !!tm && tm.state === "registering" && !this.entry && tm.players < tm.max_players
      && !(tm.rated && this.deps.me()?.kind !== "user");
  }

  get mayWithdraw() {
    const s = this.tournament?.state;
    return this.entered && (s === "registering" || s === "running");
  }

  get mayStart() { return this.isOrganiser && this.tournament?.state === "registering"; }

  /** The chat's last lines, oldest first. */
  get chat() { return this.detail?.chat ?? []; }

  /** Whether the player writes in the chat: its organiser and its entrants (withdrawn too). */
  get mayChat() { return this.isOrganiser || !!this.entry; }

  /** A line in the chat (its blanks around dropped; nothing sent when empty): whether the
   *  server took it. @param {string} text */
  say(text) {
    const line = text.trim();
    return line ? this.act_("/chat", { text: line }) : Promise.resolve(false);
  }

  register() { return this.act_("/register"); }
  withdraw() { return this.act_("/withdraw"); }
  start() { return this.act_("/start"); }
  /** The organiser enters the server's bot of `level` (1-5). @param {number} level */
  addBot(level) { return this.act_("/register", { bot: level }); }

  /** @param {string} suffix @param {unknown} [body] */
  async act_(suffix, body) {
    if (this.busy) return false;
    this.busy = true;
    this.deps.changed();
    try {
      this.show(await this.deps.api("POST", this.path(suffix), body));
      return true;
    } catch (err) {
      this.error = refusal(err);
      return false;
    } finally {
      this.busy = false;
      this.deps.changed();
    }
  }

  /** A player's name by id. @param {number | null} id */
  name(id) {
    if (id === null) return null;
    const e = this.detail?.entries.find((x) => x.id === id);
    return { id, name: e?.name ?? "?" };
  }

  /** @param {TournamentPairingView} p @returns {Slot} */
  slot(p) {
    return { board: p.board, first: this.name(p.first), second: this.name(p.second), match: p.match,
      winner: p.winner === null ? null : p.winner === p.first ? 0 : 1, reason: p.reason,
      pending: p.winner === null };
  }

  /** A knockout's bracket: a column a round, the rounds to come with empty slots (half as
   *  many as the round before, down to the final). @returns {Column[]} */
  bracket() {
    const rounds = this.detail?.rounds ?? [];
    const columns = rounds.map((r) => ({ round: r.round, slots: r.pairings.map((p) => this.slot(p)), paired: true }));
    let size = columns.length ? columns[columns.length - 1].slots.length : 0;
    let round = columns.length;
    while (size > 1) {
      size = Math.ceil(size / 2);
      round += 1;
      columns.push({ round, paired: false, slots: Array.from({ length: size }, (_, board) => (
        { board, first: null, second: null, match: null, winner: null, reason: null, pending: true })) });
    }
    return columns;
  }

  /** How many rounds a knockout has in all (from its first round's pairings). */
  get knockoutRounds() { return this.bracket().length; }

  /** The matches in play (a player's own first). @returns {Slot[]} */
  inPlay() {
    const me = this.deps.me()?.id;
    const slots = (this.detail?.rounds ?? []).flatMap((r) => r.pairings)
      .filter((p) => p.winner === null && p.match !== null)
      .map((p) => ({ p, slot: this.slot(p) }));
    slots.sort((a, b) => Number(b.p.first === me || b.p.second === me) - Number(a.p.first === me || a.p.second === me));
    return slots.map((x) => x.slot);
  }

  /** The player's own match in play (its id), if any. */
  get myMatch() {
    const me = this.deps.me()?.id;
    const p = (this.detail?.rounds ?? []).flatMap((r) => r.pairings)
      .find((x) => x.winner === null && x.match !== null && (x.first === me || x.second === me));
    return p?.match ?? null;
  }

  /** An arena's streaks: for each player, the wins in a row of their last matches played
   *  (byes and walkovers not counted), as the server counts its points. @returns {Map<number, number>} */
  streaks() {
    const played = (this.detail?.rounds ?? []).flatMap((r) => r.pairings.map((p) => ({ ...p, round: r.round })))
      .filter((p) => p.winner !== null && p.second !== null && p.reason !== "walkover" && p.reason !== "bye")
      .sort((a, b) => a.round - b.round || (a.finished_at ?? 0) - (b.finished_at ?? 0));
    /** @type {Map<number, number>} */
    const streak = new Map();
    for (const p of played) {
      for (const id of [p.first, p.second]) {
        if (id === null) continue;
        streak.set(id, p.winner === id ? (streak.get(id) ?? 0) + 1 : 0);
      }
    }
    return streak;
  }

  /** The winner's name once finished (null before). */
  get champion() {
    return this.tournament?.state === "finished" ? this.detail?.standings[0]?.name ?? null : null;
  }

  /** Whether the match in `slot` is the player's. @param {Slot} slot */
  mine(slot) {
    const me = this.deps.me()?.id;
    return me !== undefined && (slot.first?.id === me || slot.second?.id === me);
  }
}
