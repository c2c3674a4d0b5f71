// @ts-check
// pages/lobby/ctrl.js — the lobby's controller, no DOM (as the match page's round/ctrl.js):
// the open games, the challenges and Play now's pools as the socket last sent them, what
// became of this player's challenges (a new one made to them, one of theirs taken or
// declined) and of their place in Play now (waiting, paired: the match opens), and the
// actions (create a game, join, decline, withdraw, play now, cancel). The page (pages/lobby.js) draws it when
// it says what changed.

import { t } from "../../i18n.js";

/** @typedef {{id?: string, kind?: string, name?: string} | null | undefined} Me */
/** @typedef {(method: string, path: string, body?: unknown) => Promise<any>} Api */
/** @typedef {"games" | "challenges" | "pools" | "seek"} LobbyPart */
/** @typedef {import("../../wire.js").SeekView} SeekView */
/** @typedef {import("../../wire.js").PoolView} PoolView */
/** A Play now pool and its bot fallback, as the player chooses them.
 *  @typedef {{kind: string, length: number, clock: string, rated: boolean,
 *    bot?: number | null, bot_after?: number | null}} PlayNowChoice */

/** What the controller needs of the page around it (`callBack`: attention.js's, a player
 *  away from the tab called back to it).
 *  @typedef {{me: () => Me, api: Api, navigate: (hash: string) => void,
 *    notify: (text: string, options?: {error?: boolean}) => void, callBack: (text: string) => void,
 *    current: () => boolean,
 *    changed: (part: LobbyPart) => void,
 *    send: (message: Record<string, unknown>) => number | string | null}} LobbyDeps */

/** The match lengths of Play now's pools (the server's default GAMMON_PAIRING_LENGTHS). */
export const PLAY_NOW_LENGTHS = [3, 5, 7, 9, 11];

/** The Play now refusals the client says in the player's language. */
const SEEK_REFUSALS = ["bad_pool", "not_eligible", "already_seeking", "not_seeking"];

export class LobbyCtrl {
  /** @param {LobbyDeps} deps */
  constructor(deps) {
    this.deps = deps;
    /** @type {any[] | null} the open games (null: none received yet) */
    this.games = null;
    /** @type {any[] | null} the challenges made to this player (null: none received yet) */
    this.received = null;
    /** @type {any[] | null} this player's challenges waiting for an answer */
    this.sent = null;
    /** @type {Set<string>} the challenges withdrawn here (not "declined" when they go) */
    this.withdrawn = new Set();
    /** @type {string | undefined} the account the challenges were received for */
    this.shownFor = undefined;
    /** @type {PoolView[] | null} how many wait in each Play now pool (null: not received) */
    this.pools = null;
    /** @type {SeekView | null | undefined} this player's place in Play now (null: none;
     *  undefined: not received yet) */
    this.seek = undefined;
    /** @type {Set<number | string>} the ids of this page's seek and unseek messages */
    this.requests = new Set();
  }

  /** The socket's `pools` message. @param {PoolView[]} pools */
  setPools(pools) {
    this.pools = pools;
    this.deps.changed("pools");
  }

  /** The socket's `seeking` message: this player's place, or none.
   *  @param {SeekView | null} seek */
  setSeeking(seek) {
    this.seek = seek;
    this.deps.changed("seek");
  }

  /** The socket's `paired` message: the match has started; open it. @param {string} match */
  paired(match) {
    this.seek = null;
    if (this.deps.current()) {
      this.deps.navigate(`#/match/${match}`);
      this.deps.callBack(t("attention.match_ready"));
    }
  }

  /** How many wait in the pool of `choice`. @param {PlayNowChoice} choice */
  waitingIn(choice) {
    const pool = (this.pools ?? []).find((p) => p.kind === choice.kind && p.clock === choice.clock
      && p.rated === choice.rated && p.length === (choice.kind === "match" ? choice.length : 1));
    return pool ? pool.waiting : 0;
  }

  /** Play now: wait in the pool of `choice` (whether the message went: the socket may be
   *  reconnecting). The server answers `seeking`, or refuses. @param {PlayNowChoice} choice */
  playNow(choice) {
    const message = { type: "seek", kind: choice.kind, length: choice.kind === "match" ? choice.length : 1,
      clock: choice.clock, rated: choice.kind !== "money" && choice.rated };
    if (choice.bot && choice.bot_after) Object.assign(message, { bot: choice.bot, bot_after: choice.bot_after });
    return this.request_(message);
  }

  /** Leave the pool (the page left while waiting does it too). */
  cancelSeek() {
    return this.request_({ type: "unseek" });
  }

  /** Leave the pool when the page goes, if waiting in one. */
  leave() {
    if (this.seek) this.deps.send({ type: "unseek" });
  }

  /** @param {Record<string, unknown>} message */
  request_(message) {
    const id = this.deps.send(message);
    if (id === null) {
      this.deps.notify(t("error.offline"), { error: true });
      return false;
    }
    this.requests.add(id);
    return true;
  }

  /** A socket `error`: said when it answers this page's seek or unseek (in the player's
   *  language where the reason is known); whether it did.
   *  @param {{code: string, message: string, id?: number | string | null}} error */
  refused(error) {
    if (error.id === undefined || error.id === null || !this.requests.delete(error.id)) return false;
    const known = SEEK_REFUSALS.includes(error.code);
    this.deps.notify(known ? t(`lobby.play_now_${error.code}`) : error.message, { error: true });
    return true;
  }

  /** The socket's `lobby` message: the open games. @param {any[]} games */
  setGames(games) {
    this.games = games;
    this.deps.changed("games");
  }

  /** The socket's `challenges` message: the games reserved for this player (`received`:
   *  challenges and rematches to answer) and by them for another (`sent`). A challenge
   *  new to this player is told; one of theirs gone was answered.
   *  @param {{received: any[], sent: any[]}} challenges */
  setChallenges({ received, sent }) {
    const me = this.deps.me();
    if (this.shownFor !== me?.id) { // another account signed in here: nothing of theirs was shown
      this.shownFor = me?.id;
      this.received = this.sent = null;
    }
    if (this.received) {
      for (const g of received) {
        if (!this.received.some((old) => old.id === g.id)) {
          const text = t("lobby.challenged_by", { name: g.creator?.name ?? "?" });
          this.deps.notify(text);
          this.deps.callBack(text);
        }
      }
    }
    if (this.sent) {
      for (const old of this.sent) if (!sent.some((g) => g.id === old.id)) this.answered(old);
    }
    this.received = received;
    this.sent = sent;
    this.deps.changed("challenges");
  }

  /** Create a game (refused: throws). A challenge stays in the lobby, waiting for its
   *  player to answer; any other game opens at once. @param {Record<string, any>} body */
  async create(body) {
    if (body.kind !== "match") body.length = 1;
    const info = await this.deps.api("POST", "/api/games", body);
    if (body.opponent) this.deps.notify(t("lobby.challenge_sent", { name: body.opponent }));
    else this.deps.navigate(info.invite.replace(/^\//, "")); // with the key of a private match
  }

  /** What to tell of a refused game: in the player's language where the reason is known.
   *  @param {{code?: string, message: string}} err */
  refusal(err, opponent = "") {
    if (err.code === "too_many_games") return t("error.too_many_games");
    if (opponent && err.code === "not_found") return t("lobby.error_no_player", { name: opponent });
    if (opponent && err.code === "own_game") return t("lobby.error_yourself");
    return err.message;
  }

  /** Join an open game, or accept a challenge: the match opens. @param {string} id */
  async join(id) {
    try {
      await this.deps.api("POST", `/api/games/${id}/join`, {});
      this.deps.navigate(`#/match/${id}`);
    } catch (err) { this.deps.notify(err.message, { error: true }); }
  }

  /** Decline a challenge made to this player (whether it was done); the server's
   *  `challenges` message then takes it away. @param {string} id */
  decline(id) {
    return this.request("POST", `/api/games/${id}/decline`, t("lobby.declined"));
  }

  /** Withdraw a challenge of this player's (whether it was done). @param {any} challenge */
  async withdraw(challenge) {
    this.withdrawn.add(challenge.id);
    if (await this.request("DELETE", `/api/games/${challenge.id}`, t("lobby.withdrawn"))) return true;
    // refused: taken (or declined) meanwhile, and maybe already gone from the list
    this.withdrawn.delete(challenge.id);
    if (!this.sent?.some((g) => g.id === challenge.id)) this.answered(challenge);
    return false;
  }

  /** @param {string} method @param {string} path @param {string} done said when it is done */
  async request(method, path, done) {
    try {
      await this.deps.api(method, path);
      this.deps.notify(done);
      return true;
    } catch (err) {
      this.deps.notify(err.message, { error: true });
      return false;
    }
  }

  /** A challenge of this player's is no longer waiting: taken (the match opens), or
   *  declined (said so) — unless it was withdrawn here. @param {any} challenge */
  async answered(challenge) {
    if (this.withdrawn.has(challenge.id)) return;
    let status = "cancelled";
    try { status = (await this.deps.api("GET", `/api/games/${challenge.id}`)).info.status; } catch { /* gone: cancelled */ }
    if (!this.deps.current()) return;
    if (status === "playing") this.deps.navigate(`#/match/${challenge.id}`);
    else if (status === "cancelled") this.deps.notify(t("lobby.challenge_declined", { name: challenge.opponent?.name ?? "?" }));
  }
}
