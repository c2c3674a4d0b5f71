// @ts-check
// round/ctrl.js — the match page's controller: what the page holds (the pick, the message,
// the action on its way, the frames to show, the hint, the match's end), what the player may
// do now, and the actions. No DOM: it reads the live feed (net.js's MatchFeed), proposes
// actions through it, and asks for a redraw through its `redraw` callback; sounds, the
// screen-reader announcer, toasts and navigation are effects the page hands it.
//
// The server decides everything. The controller shows only states the server confirmed and
// proposes actions; the legal steps it accepts are the ones the server sent with the state
// (`game.legal`, `game.reach`), and what the player may do now is the server's word too
// (`can_double`, `can_undo`, `can_confirm`, `resign_floor`; docs/client.md, "From the server").

import { t } from "../i18n.js";
import { describeEvent, feedbackOf } from "../movelist.js";
import { clockReading, notePolish } from "./clock.js";
import { FrameQueue, PACE } from "./frames.js";
import { HintCtrl } from "./hints.js";
import { bearOffStep, decides, longestMove, whyNot } from "./moves.js";
import { refusalText } from "./refusal.js";
import { MatchEnd, overFacts } from "./over.js";
import { NO_EFFECTS } from "./types.js";

/** @typedef {import("./types.js").Api} Api */
/** @typedef {import("./types.js").Effects} Effects */
/** @typedef {import("./types.js").Feed} Feed */
/** @typedef {import("./types.js").Redraw} Redraw */

export class RoundCtrl {
  /**
   * @param {{id: string, key?: string | null, feed: Feed, options: () => Record<string, any>,
   *   redraw: (how?: Redraw) => void, api: Api, effects?: Partial<Effects>}} how
   *   `id`, `key`: the match and its invite key (a private match); `options`: the player's.
   */
  constructor({ id, key = null, feed, options, redraw, api, effects = {} }) {
    this.id = id;
    this.key = key;
    this.query = key ? `?key=${encodeURIComponent(key)}` : "";
    this.feed = feed;
    this.options = options;
    this.redraw = redraw;
    this.api = api;
    this.fx = { ...NO_EFFECTS, ...effects };
    /** @type {number | null} */ this.hover = null; // a movable checker under the mouse
    /** @type {number | null} */ this.selected = null; // the checker picked (tap, keyboard)
    /** @type {number | null} */ this.cursor = null; // the keyboard's point
    /** @type {number | null} */ this.dragSrc = null; // the checker being dragged (input.js)
    this.busy = false; // an action is on its way: wait for the server's answer
    this.wasMine = false; // the game waited for this player at the last state (myDecision)
    /** @type {{from: number, dice: number[], v: number | null} | null} */ this.chain = null; // the rest of a multi-step move, and the version its last step was sent at
    this.message = "";
    this.messageError = false;
    this.spectatorBottom = 0;
    /** @type {(number | null)[]} */ this.lastReading = [null, null]; // Polish clock: the game time a move time-out leaves
    /** @type {{id: number, text: string} | null} */ this.chatPending = null; // the chat line sent and not yet seen
    /** @type {any} */ this.matchEnd = null; // the match_ended event seen live
    /** @type {any} */ this.lastEvent = null;
    /** @type {readonly number[] | null} */ this.prevBoard = null;
    /** @type {ReturnType<typeof setTimeout> | undefined} */ this.autoTimer = undefined;
    /** @type {{events: any[], length: number, anew: boolean | null, fb: any} | null} */ this.fbMemo = null;
    this.queue = new FrameQueue({
      pace: () => this.pace(),
      onFrame: (frame) => { if (frame.kind === "move") this.fx.sound("checker"); this.changed(); },
      onEnd: () => { this.changed({ settled: true }); this.maybeAuto(); },
    });
    this.hints = new HintCtrl(this);
    this.end = new MatchEnd({ id, query: this.query, api, info: () => this.info, onChange: () => this.changed() });
    /** @type {[string, EventListener][]} */
    this.listeners = [
      ["state", (e) => this.onState(/** @type {CustomEvent} */ (e).detail)],
      ["error", (e) => this.onError(/** @type {CustomEvent} */ (e).detail)],
      ["history", () => this.changed()],
    ];
    for (const [type, fn] of this.listeners) feed.addEventListener(type, fn);
  }

  /** Stop listening and every timer (the page goes). */
  stop() {
    for (const [type, fn] of this.listeners) this.feed.removeEventListener(type, fn);
    this.queue.stop();
    this.end.stop();
    clearTimeout(this.autoTimer);
  }

  /** Ask for a redraw; a hint whose decision is no longer the one on the board goes first.
   *  @param {Redraw} how */
  changed(how = {}) {
    this.hints.dropStale();
    this.redraw(how);
  }

  // -- what the server said ------------------------------------------------------------

  get game() { return this.feed.game; }
  get info() { return this.feed.info; }
  get you() { return this.feed.you; }
  get online() { return this.feed.socket.status === "open"; }

  /** Whether the game waits for this player (moves.js's `decides`). */
  get myDecision() { return decides(this.game, this.you); }

  /** A state from the server: `full` a whole state (after subscribing), else an update with
   *  its fresh `events`. @param {{full: boolean, events: any[]}} detail */
  onState({ full, events }) {
    this.busy = false;
    this.fx.answered();
    if (full) {
      this.queue.clear();
      if (this.feed.v !== null && this.feed.v > 0) this.feed.backfill(); // the moves so far, for the move list
    }
    // a picked checker that cannot move any more (the turn went on, or ended) is dropped
    if (this.selected !== null && !(this.moving && this.legal[String(this.selected)])) this.selected = null;
    this.hints.noteTurnStart();
    notePolish(this.feed.clock, this.lastReading);
    this.queueFrames(this.queue.frame?.board || this.prevBoard, events);
    if (events.length) this.setMessage(""); // news from the server replaces old advice
    for (const event of events) this.onEvent(event);
    const mine = this.myDecision;
    if (mine && !this.wasMine && !full) this.fx.callBack(t("attention.your_turn"));
    this.wasMine = mine;
    this.prevBoard = this.game?.board || null;
    if (this.chain) this.continueChain();
    this.changed({ settled: true });
    this.maybeAuto();
  }

  /** Queue the frames of fresh `events` from the board `before` them (frames.js).
   *  @param {readonly number[] | null} before @param {any[]} events */
  queueFrames(before, events) {
    if (!this.game) return;
    this.queue.queue(before, events, { you: this.you, anew: this.anew, all: this.feed.events, current: this.feedback() });
  }

  /** @param {any} e an event */
  onEvent(e) {
    const text = this.describe(e, this.lastEvent);
    this.lastEvent = e;
    if (text) this.fx.announce(text);
    switch (e.type) {
      case "dice_rolled":
      case "opening_rolled":
        this.fx.sound("dice");
        if ((e.type === "dice_rolled" ? e.player : e.first) === this.you) this.setMessage("");
        break;
      case "checker_moved":
        if (e.player === this.you) {
          this.fx.sound("checker");
          this.hints.moved(); // the board moved on from a hint's play drawn on it
        }
        break;
      case "turn_ended":
        if (e.player !== this.you && this.you !== null) this.fx.sound("turn");
        break;
      case "match_ended":
        this.matchEnd = e; // the update that holds it brings the info: result, ratings
        this.fx.sound("end");
        break;
      case "game_ended":
        this.fx.sound("end");
        break;
      default:
        break;
    }
  }

  /** A refusal (or any error) from the server. @param {any} error */
  onError(error) {
    if (this.chatPending && error.id === this.chatPending.id) this.chatPending = null; // refused: kept in the input
    this.busy = false;
    this.fx.answered();
    this.chain = null;
    const text = refusalText(error);
    this.setMessage(text, true);
    this.fx.toast(text, true);
    this.changed();
  }

  /** The connection's status changed: an answer lost with it never comes (the resync is the
   *  answer). @param {string} status */
  onStatus(status) {
    if (status !== "open") { this.busy = false; this.chain = null; this.fx.answered(); }
    this.changed({ instant: true });
  }

  /** @param {string} text @param {boolean} error */
  setMessage(text, error = false) {
    this.message = text;
    this.messageError = error;
  }

  /** A seat's name (… while the seat is open). @param {number} seat */
  name(seat) {
    return this.info?.seats?.[seat]?.name ?? (this.info?.status === "open" ? "…" : t("match.player", { seat: seat + 1 }));
  }

  /** An event in words (what the screen reader hears). @param {any} e @param {any} prev */
  describe(e, prev = null) {
    return describeEvent(e, prev, (/** @type {number} */ seat) => this.name(seat), this.anew);
  }

  /** The match's "winner rolls anew" rule, from its info (null before the info came). */
  get anew() {
    return this.info?.winner_rolls_anew ?? null;
  }

  /** The board's feedback (last move, last dice, opening) from every event held. */
  feedback() {
    const events = this.feed.events;
    const m = this.fbMemo;
    if (!m || m.events !== events || m.length !== events.length || m.anew !== this.anew) {
      this.fbMemo = { events, length: events.length, anew: this.anew, fb: feedbackOf(events, this.anew) };
    }
    return /** @type {{fb: any}} */ (this.fbMemo).fb;
  }

  pace() {
    return PACE[this.options().graphics === "low" ? "low" : "high"];
  }

  get animating() {
    return this.queue.animating;
  }

  get paced() {
    return this.queue.paced;
  }

  /** How the match ended (over.js's overFacts). */
  overFacts() {
    return overFacts(this.feed.events, this.matchEnd, this.info, this.game);
  }

  /** Seat `seat`'s clock as it reads `now` (performance.now() milliseconds).
   *  @param {number} seat @param {number} now */
  clockOf(seat, now = performance.now()) {
    return clockReading(this.feed.clock, seat, (now - this.feed.clockAt) / 1000, this.lastReading);
  }

  // -- derived facts (from the server's state only) -----------------------------------

  get isPlayer() { return this.you !== null && this.you !== undefined; }

  get myTurn() {
    return this.isPlayer && !!this.game && this.game.turn === this.you;
  }

  /** @returns {string | undefined} */
  get phase() { return this.game?.phase; }

  get moving() {
    return this.myTurn && this.phase === "moving" && !this.animating;
  }

  /** The legal steps now: {src: {die: dest}}, the server's `legal` (empty unless moving).
   *  @returns {Record<string, Record<string, number>>} */
  get legal() {
    return this.moving ? this.game.legal || {} : {};
  }

  canRoll() {
    return this.myTurn && this.phase === "before_roll" && !this.animating;
  }

  canDouble() {
    return this.canRoll() && !!this.game.can_double;
  }

  canUndo() {
    return this.moving && !!this.game.can_undo;
  }

  canConfirm() {
    return this.moving && !!this.game.can_confirm;
  }

  /** The highest resignation refused this turn (only higher ones may be offered). */
  get resignFloor() {
    return this.game?.resign_floor ?? 0;
  }

  canResign() {
    return this.myTurn && (this.phase === "before_roll" || this.phase === "moving") && this.resignFloor < 3;
  }

  isLive() {
    return this.info?.status === "playing" && !!this.game && this.phase !== "match_over";
  }

  /** Where the checker on `src` can go: Map dest -> {dice}, the server's `reach` (the dice
   *  to send as steps, in order). @param {number} src */
  reachOf(src) {
    /** @type {Map<number, {dice: number[]}>} */
    const out = new Map();
    if (!this.moving) return out;
    /** @type {Record<string, number[]>} */
    const reach = this.game.reach?.[String(src)] || {};
    for (const [dest, dice] of Object.entries(reach)) out.set(Number(dest), { dice: dice.slice() });
    return out;
  }

  sources() {
    return Object.keys(this.legal).map(Number);
  }

  /** The dialog the state asks for: a cube or resignation offer to answer (`cube:V`,
   *  `resign:V`), the match's end (`over`), or none. */
  dialogWanted() {
    const g = this.game;
    if (g && this.isPlayer) {
      if (g.phase === "cube_offered" && g.turn !== this.you) return `cube:${this.feed.v}`;
      if (g.phase === "resign_offered" && g.turn !== this.you) return `resign:${this.feed.v}`;
      if (g.phase === "match_over" || this.info?.status === "finished") return "over";
    } else if (g && g.phase === "match_over") return "over";
    return null;
  }

  /** Why the checker on `src` cannot go to `dest` (moves.js). @param {number} src @param {number | null} dest */
  whyNot(src, dest) {
    return whyNot(this, src, dest);
  }

  // -- proposing actions -------------------------------------------------------------

  /** Propose an action, unless one is on its way; whether it went.
   *  @param {string} type @param {Record<string, unknown>} fields */
  send(type, fields = {}) {
    if (this.busy) return false;
    const id = this.feed.act(type, fields);
    if (id === null) {
      this.setMessage(t("error.offline"), true);
      this.changed();
      return false;
    }
    this.busy = true;
    return true;
  }

  roll() {
    if (this.canRoll()) this.send("roll");
  }

  double() {
    if (this.canDouble()) this.send("double");
  }

  undo() {
    this.chain = null;
    if (this.canUndo()) this.send("undo");
  }

  /** End the turn (the Done button, or a click on the dice): with the confirm option the
   *  server waits for it once the steps are a whole play. */
  confirm() {
    if (this.canConfirm()) this.send("confirm");
  }

  /** Answer an offer: take, drop or beaver a cube; accept or reject a resignation.
   *  @param {"take" | "drop" | "beaver" | "accept_resign" | "reject_resign"} answer */
  answer(answer) {
    this.send(answer);
  }

  /** Offer to resign `level` points a cube (1 single, 2 gammon, 3 backgammon). @param {number} level */
  resign(level) {
    if (this.canResign() && level > this.resignFloor && level <= 3) this.send("resign", { level });
  }

  abandon() {
    if (!this.isPlayer || !this.isLive()) return;
    this.busy = false; // abandoning is never kept waiting
    this.send("abandon");
  }

  /** A chat line; kept (as `chatPending`) until the server sends it back. @param {string} text */
  chat(text) {
    const line = text.trim();
    const id = line ? this.feed.act("chat", { text: line }) : null;
    if (id !== null) this.chatPending = { id, text: line };
  }

  /** A spectator turns the board: the other seat at the bottom. */
  switchSide() {
    this.spectatorBottom = 1 - this.spectatorBottom;
    this.changed({ instant: true });
  }

  /** An option changed mid-match: it applies from the next action, without a reload (the
   *  server reads confirm and auto-roll at each turn, and acts at once on a change). */
  optionChanged() {
    this.changed({ instant: true });
    this.maybeAuto();
  }

  /** @param {number} from @param {number} die */
  sendStep(from, die) {
    return this.send("step", { from, die });
  }

  /** Move the checker on `src` along `dice` (each a step the server checks).
   *  @param {number} src @param {number[]} dice */
  movePath(src, dice) {
    if (!dice.length) return;
    const dest = (this.legal[String(src)] || {})[String(dice[0])];
    if (dest === undefined) return;
    this.chain = dice.length > 1 ? { from: dest, dice: dice.slice(1), v: this.feed.v } : null;
    this.selected = null;
    this.hover = null;
    this.setMessage("");
    if (!this.sendStep(src, dice[0])) this.chain = null;
  }

  /** The longest move of the checker on `src`. @param {number} src */
  clickMove(src) {
    const dice = longestMove(this.reachOf(src));
    if (dice) this.movePath(src, dice);
  }

  /** The next step of a multi-step move, once the server has taken the one before: a
   *  state still at the version the step was sent at is other news (the answer to the
   *  page's backfill), and the move waits on for its own answer. */
  continueChain() {
    const chain = this.chain;
    if (!chain || this.feed.v === chain.v) return;
    this.chain = null;
    if (!this.moving) return;
    const dest = (this.legal[String(chain.from)] || {})[String(chain.dice[0])];
    if (dest === undefined) return; // the server's reach said it goes on: the board moved meanwhile
    this.chain = chain.dice.length > 1 ? { from: dest, dice: chain.dice.slice(1), v: this.feed.v } : null;
    this.sendStep(chain.from, chain.dice[0]);
  }

  /** Move the checker on `src` to `dest` if it can go there; else say why. Whether it went.
   *  @param {number} src @param {number} dest */
  tryMove(src, dest) {
    const r = this.reachOf(src).get(dest);
    if (r) {
      this.movePath(src, r.dice);
      return true;
    }
    this.setMessage(this.whyNot(src, dest), true);
    this.fx.sound("alarm");
    this.changed();
    return false;
  }

  /** Pick the checker on `src` (its destinations lit and said), or drop the pick when it was
   *  already picked (a second tap). @param {number} src */
  pick(src) {
    this.hover = null;
    if (this.selected === src) {
      this.dropPick();
      return;
    }
    this.selected = src;
    const targets = [...this.reachOf(src).keys()].map((d) => (d === 0 ? t("board.off") : d));
    this.setMessage(t("move.selected", { point: src === 25 ? t("board.bar") : src, targets: targets.join(", ") }));
    this.fx.announce(this.message);
  }

  dropPick() {
    this.selected = null;
    this.setMessage("");
  }

  /** What the options do by themselves: auto bear-off (the server itself rolls for
   *  auto-roll and ends the turn for a player who does not confirm). */
  maybeAuto() {
    if (!this.isPlayer || this.busy || this.animating) return;
    this.maybeAutoBearoff();
  }

  maybeAutoBearoff() {
    clearTimeout(this.autoTimer);
    if (!this.options().auto_bearoff || !this.moving || this.busy || this.chain) return;
    const step = bearOffStep(this.legal);
    if (!step) return;
    this.autoTimer = setTimeout(() => {
      if (this.moving && !this.busy) this.sendStep(step.src, step.die);
    }, 350);
  }

  // -- the ways on: open games, rematches ------------------------------------------------

  /** Call the API; then go to `then` (its `{id}` the answer's), or say why not.
   *  @param {string} method @param {string} path @param {unknown} body @param {string | null} then */
  async call(method, path, body, then) {
    try {
      const answer = await this.api(method, path, body);
      if (then !== null) this.fx.navigate(then.replace("{id}", answer?.id ?? ""));
    } catch (err) { this.fx.toast(/** @type {Error} */ (err).message, true); }
  }

  /** Join this open match (a spectator of an open seat). */
  join() { return this.call("POST", `/api/games/${this.id}/join${this.query}`, {}, null); }

  /** Withdraw this open match (its creator), back to the lobby. */
  cancelOpen() { return this.call("DELETE", `/api/games/${this.id}`, undefined, "#/"); }

  /** Ask for a rematch: the new match's page. */
  rematch() { return this.call("POST", `/api/games/${this.id}/rematch`, undefined, "#/match/{id}"); }

  /** Join the rematch the other player offered. @param {string} id */
  joinRematch(id) { return this.call("POST", `/api/games/${id}/join`, {}, `#/match/${id}`); }
}
