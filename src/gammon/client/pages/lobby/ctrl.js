// @ts-check
// pages/lobby/ctrl.js — the lobby's controller, no DOM (as the match page's round/ctrl.js):
// the open games and the challenges as the socket last sent them, what became of this
// player's challenges (a new one made to them, one of theirs taken or declined), and the
// actions (create a game, join, decline, withdraw). The page (pages/lobby.js) draws it when
// it says what changed.

import { t } from "../../i18n.js";

/** @typedef {{id?: string, kind?: string, name?: string} | null | undefined} Me */
/** @typedef {(method: string, path: string, body?: unknown) => Promise<any>} Api */
/** @typedef {"games" | "challenges"} LobbyPart */

/** What the controller needs of the page around it.
 *  @typedef {{me: () => Me, api: Api, navigate: (hash: string) => void,
 *    notify: (text: string, options?: {error?: boolean}) => void, current: () => boolean,
 *    changed: (part: LobbyPart) => void}} LobbyDeps */

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
        if (!this.received.some((old) => old.id === g.id)) this.deps.notify(t("lobby.challenged_by", { name: g.creator?.name ?? "?" }));
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
