// @ts-check
// pages/replay/ctrl.js — the replay page's controller, no DOM (as the lobby's
// pages/lobby/ctrl.js): the match the route names (its id, the invite key of a private
// one, the move to open at), its info as the server gave it, its frames and move list from
// the events the feed holds (replay.js, movelist.js), the frame shown and the side at the
// bottom, and the actions (step to a move, flip the board, switch sides). The page
// (pages/replay.js) draws it, with stepper.js's FrameStepper, when it says what changed.

import { t } from "../../i18n.js";
import { moveRows } from "../../movelist.js";
import { frameAt, matchFrames } from "../../replay.js";

/** @typedef {import("../../round/types.js").Api} Api */
/** @typedef {import("../../replay.js").Frame} Frame */
/** @typedef {import("../../movelist.js").MoveRow} MoveRow */
/** @typedef {import("../../wire.js").EventView} EventView */
/** @typedef {import("../../wire.js").InfoView} InfoView */
/** @typedef {import("../../wire.js").Options} Options */
/** What changed: `frames` (the info, the frames and the move list: all of it), `frame`
 *  (the frame shown, or the way it is drawn), `error` (the match could not be read).
 *  @typedef {"frames" | "frame" | "error"} ReplayPart */

/** What the controller needs of the page around it: the feed's events (the match's, from
 *  version 0), the player's options and their saving, `remember` (the address of the move
 *  shown, kept without a new page in the browser's history).
 *  @typedef {{api: Api, events: () => EventView[], options: () => Options,
 *    saveOptions: (patch: Partial<Options>) => unknown, remember: (hash: string) => void,
 *    changed: (part: ReplayPart) => void}} ReplayDeps */

export class ReplayCtrl {
  /** @param {string} arg the route's: ID, ID/V (at the move of event version V), either
   *  with ?key=KEY (a private match's invite key) @param {ReplayDeps} deps */
  constructor(arg, deps) {
    const [path, key] = arg.split("?key=");
    const [id, at] = path.split("/");
    this.deps = deps;
    this.id = id;
    /** @type {string | null} */
    this.key = key || null;
    this.query = this.key ? `?key=${encodeURIComponent(this.key)}` : "";
    /** @type {number | null} the event version the route opens at */
    this.at = at !== undefined && /^\d+$/.test(at) ? Number(at) : null;
    /** @type {InfoView | null} the match's info, read before anything is drawn */
    this.info = null;
    /** @type {string} why the match could not be read, in the player's language where known */
    this.error = "";
    /** @type {Frame[]} */
    this.frames = [];
    /** @type {MoveRow[]} the move list's rows */
    this.rows = [];
    this.index = 0; // the frame shown
    this.bottom = 0; // the seat drawn at the bottom
    this.loadedOnce = false; // frames were shown: the route's move was opened
  }

  /** The match's downloads and pages, each with the invite key of a private match. */
  get links() {
    const { id, query } = this;
    return {
      mat: `/api/games/${id}/export.mat${query}`, sgf: `/api/games/${id}/export.sgf${query}`,
      live: `#/match/${id}${query}`, review: `#/review/${id}${query}`, fairness: `#/fairness/${id}`,
    };
  }

  /** The address of the move of event version `v`. @param {number} v */
  moveHref(v) {
    return `#/replay/${this.id}/${v}${this.query}`;
  }

  /** The players, as the title names them ("…" for a seat still empty); "" before the info. */
  get players() {
    return this.info ? this.info.seats.map((s) => s?.name ?? "…").join(" – ") : "";
  }

  /** Whether the match may be reviewed (it is over). */
  get reviewable() {
    return this.info?.status === "finished";
  }

  /** The page is shown: the match's info read, then its frames from the events held. */
  async start() {
    try {
      const state = await this.deps.api("GET", `/api/games/${this.id}${this.query}`);
      this.info = state.info;
      this.load();
    } catch (err) {
      this.error = err.status === 404 ? t("replay.not_found") : err.message;
      this.deps.changed("error");
    }
  }

  /** The events (re)read (the feed's `state`, or the info came): the frames and the move list
   *  made again. The first frames open at the route's move; later, a replay left at the
   *  last frame follows the match, one stepped back stays where it is. */
  load() {
    const info = this.info;
    if (!info) return;
    const events = this.deps.events();
    const name = (seat) => info.seats[seat]?.name ?? "?";
    const atEnd = !this.frames.length || this.index >= this.frames.length - 1;
    this.frames = matchFrames(events, info);
    this.rows = moveRows(events, name, info.winner_rolls_anew ?? null);
    if (this.frames.length) {
      if (this.at !== null && !this.loadedOnce) this.index = frameAt(this.frames, this.at);
      else this.index = this.within(atEnd && this.loadedOnce ? this.frames.length - 1 : this.index);
      this.loadedOnce = true;
    }
    this.deps.changed("frames");
  }

  /** Show the position after the event of version `v` (a move picked in the list); its
   *  address is remembered. @param {number} v */
  jump(v) {
    this.index = frameAt(this.frames, v);
    this.deps.remember(this.moveHref(v));
    this.deps.changed("frame");
  }

  /** The stepper showed frame `i` (its buttons, slider or keys). @param {number} i */
  shown(i) {
    this.index = i;
  }

  /** Flip the board (the player's option, saved). */
  flip() {
    this.deps.saveOptions({ flip: !this.deps.options().flip });
    this.deps.changed("frame");
  }

  /** The other seat at the bottom. */
  switchSide() {
    this.bottom = 1 - this.bottom;
    this.deps.changed("frame");
  }

  /** @param {number} i */
  within(i) {
    return Math.max(0, Math.min(this.frames.length - 1, i));
  }
}
