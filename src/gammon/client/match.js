// match.js — the match page: the board, moving checkers (drag, click, keyboard), the turn
// controls, dialogs, clocks, chat and the event log, for players and spectators.
//
// The server decides everything. This page shows only states the server confirmed (the
// MatchFeed in net.js) and proposes actions; the legal steps it highlights and accepts are
// the ones the server sent with the state (`game.legal`, `game.reach`), and what the player
// may do now is the server's word too (`can_double`, `can_undo`, `can_confirm`,
// `resign_floor`; docs/client.md, "From the server").

import { BoardView, NS, slotNeighbour, formatSeconds } from "./board.js";
import { language, t } from "./i18n.js";
import { api } from "./net.js";
import { describeEvent, diceValues, feedbackOf, moveRows, reduceFeedback, renderMoveList } from "./movelist.js";
import { applyMove, INITIAL } from "./replay.js";
import { announce, ask, copyText, downloadLink, h, kindText, sound, toast } from "./ui.js";

const LEVEL_KEYS = { 1: "resign.single", 2: "resign.gammon", 3: "resign.backgammon" };

/** How long each animation frame stays (ms), by the graphics option: an opponent's checker
 *  slides one at a time (high: with a glide; low: a quick jump). */
export const PACE = {
  high: { move: 420, roll: 550, opening: 900, game: 1100, own: 0 },
  low: { move: 160, roll: 250, opening: 450, game: 500, own: 0 },
};

/** A hint's look-ahead (as `gammon hint --plies`) and how many of its plays are listed. */
const HINT_PLIES = 2;
const HINT_PLAYS = 5;

/** An equity with its sign, three decimals, in the page's language ("+0.143"). */
function signed(value) {
  if (value === null || value === undefined) return "—";
  return new Intl.NumberFormat(language(), { minimumFractionDigits: 3, maximumFractionDigits: 3, signDisplay: "exceptZero" }).format(value);
}

function percent(value) {
  return new Intl.NumberFormat(language(), { style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(value);
}

/** The moves of a play in notation ("24/18 13/9*", "6/4(2)", "bar/20", "6/off"; a path
 *  through a hit, 13/7* then /5, is two moves) as the board draws a last move:
 *  [{from, to, hit}] in the mover's numbering (25 the bar, 0 off). */
export function playMoves(text) {
  const at = (word) => {
    const w = word.replace("*", "").toLowerCase();
    return w === "bar" ? 25 : w === "off" ? 0 : Number(w);
  };
  const moves = [];
  for (const token of text.split(/\s+/).filter(Boolean)) {
    const [, path, count] = /^(.*?)(?:\((\d)\))?$/.exec(token);
    const points = path.split("/");
    for (let n = 0; n < Number(count || 1); n++) {
      for (let i = 1; i < points.length; i++) moves.push({ from: at(points[i - 1]), to: at(points[i]), hit: points[i].endsWith("*") });
    }
  }
  return moves;
}

/** The GNU Backgammon Match ID (its manual, "A technical description of the Match ID"; the
 *  server's reader is gammon.formats.match_id) of game `g` before the side on turn rolls:
 *  what POST /api/eval reads the cube, score and turn from. Player numbers are seats. */
export function gnubgMatchId(g, info) {
  const key = new Uint8Array(9);
  let bit = 0;
  const put = (value, width) => { // least significant bit first, from bit 0 of byte 0
    for (let i = 0; i < width; i++, bit++) if ((value >> i) & 1) key[bit >> 3] |= 1 << (bit & 7);
  };
  const money = !g.length;
  put(Math.log2(g.cube.value), 4);
  put(g.cube.owner === null || g.cube.owner === undefined ? 3 : g.cube.owner, 2); // 3: centred
  put(g.turn, 1); // the dice owner: the side to roll
  put(g.crawford ? 1 : 0, 1);
  put(1, 3); // a game in play
  put(g.turn, 1); // on turn
  put(0, 1); // no double offered
  put(0, 2); // no resignation offered
  put(0, 6); // not rolled yet
  put(money ? 0 : g.length, 15);
  put(money ? 0 : g.score[0], 15);
  put(money ? 0 : g.score[1], 15);
  put(info?.jacoby ? 0 : 1, 1); // GNU Backgammon stores "no Jacoby rule"
  return btoa(String.fromCharCode(...key));
}

/** A refusal in the player's language, from its reason code (PROTOCOL.md, "Error codes";
 *  an `illegal` one by its `reason`); the server's English text only for a code this client
 *  does not know. */
export function refusalText(error) {
  const key = error.code === "illegal" ? `error.illegal_${error.reason || "not_allowed"}` : `error.${error.code}`;
  const text = t(key);
  return text !== key ? text : `${t("error.refused")} ${error.message || ""}`;
}

export class MatchPage {
  constructor(app, matchId) {
    this.app = app;
    // a private match's invite link carries its key: #/match/ID?key=KEY (PROTOCOL.md)
    const [id, key] = matchId.split("?key=");
    this.id = id;
    this.key = key || null;
    this.query = this.key ? `?key=${encodeURIComponent(this.key)}` : "";
    this.hover = null;
    this.selected = null;
    this.cursor = null;
    this.busy = false; // an action is on its way: wait for the server's answer
    this.chain = null; // the rest of a multi-step move
    this.frames = []; // frames still to show (the opponent's moves, one at a time)
    this.frame = null; // the frame on screen while frames play: {board, fb, kind, throw}
    this.paced = []; // the frames shown lately, {kind, pause} (the browser tests read it)
    this.lastReading = [null, null]; // Polish clock: the game time a move time-out leaves
    this.spectatorBottom = 0;
    this.dialogKey = null;
    this.dialog = null;
    this.message = "";
    this.messageError = false;
    this.lastAlarm = 0;
    this.drag = null;
    this.handlers = [];
  }

  // -- building the page -------------------------------------------------------------

  mount(main) {
    this.root = h("section", { class: "match", "aria-label": t("match.title") });
    this.title = h("h1", {}, t("match.loading"));
    this.meta = h("span", { class: "muted small" });
    this.svg = document.createElementNS(NS, "svg");
    this.svg.setAttribute("aria-label", t("board.label"));
    this.svg.setAttribute("aria-describedby", "kbd-help");
    this.view = new BoardView(this.svg, t);
    this.status = h("p", { class: "status-line", role: "status", "aria-live": "polite" });
    this.controls = h("div", { class: "controls", role: "toolbar", "aria-label": t("match.controls") });
    this.buttons = {};
    const button = (name, label, onclick, cls = "") => {
      const b = h("button", { type: "button", class: cls, "data-act": name, onclick }, label);
      this.buttons[name] = b;
      this.controls.append(b);
      return b;
    };
    button("roll", t("match.roll"), () => this.roll(), "primary");
    button("double", t("match.double"), () => this.double());
    button("undo", t("match.undo"), () => this.undo());
    button("confirm", t("match.confirm"), () => this.confirm(), "primary");
    button("resign", t("match.resign"), () => this.resignDialog());
    button("abandon", t("match.abandon"), () => this.abandonDialog(), "danger");
    button("flip", t("match.flip"), () => this.toggleOption("flip"));
    button("side", t("match.switch_side"), () => { this.spectatorBottom = 1 - this.spectatorBottom; this.render(true); });
    button("sound", t("match.sound"), () => this.toggleOption("sound"));
    button("hint", t("hint.button"), () => this.hint());
    this.hintBox = h("section", { class: "hint-panel card", "data-hint": "", hidden: true, "aria-live": "polite" });
    this.waiting = h("div");
    const help = h("p", { class: "kbd-help", id: "kbd-help" }, t("match.keyboard_help"));
    this.moveList = h("div", { class: "movelist", role: "log", "aria-label": t("match.log"), tabindex: 0 });
    this.chatLines = h("div", { class: "chat-lines", "aria-live": "polite" });
    const chatInput = h("input", { type: "text", maxlength: 300, "aria-label": t("match.chat_message"), placeholder: t("match.chat_placeholder") });
    // the line stays in the input until the server sends it back to everyone: a refused
    // one (the chat rate limit, say) is still there to send again
    this.chatInput = chatInput;
    this.chatPending = null; // {id, text} of the line sent and not yet seen
    const chatForm = h("form", { class: "chat-form", onsubmit: (e) => {
      e.preventDefault();
      const text = chatInput.value.trim();
      const id = text ? this.feed.act("chat", { text }) : null;
      if (id !== null) this.chatPending = { id, text };
    } }, chatInput, h("button", { type: "submit" }, t("match.send")));
    this.chatBox = h("section", { class: "card" }, h("h2", {}, t("match.chat")), this.chatLines, chatForm);
    this.optionsBox = this.buildOptionsMenu();
    this.root.append(
      h("div", { class: "match-main" },
        h("div", { class: "match-head" }, this.title, this.meta),
        this.waiting,
        h("div", { class: "board-wrap" }, this.svg),
        this.status,
        this.controls,
        this.hintBox,
        help),
      h("div", { class: "match-side" },
        h("section", { class: "card" }, h("h2", {}, t("match.log")), this.moveList),
        this.chatBox,
        this.optionsBox),
    );
    main.replaceChildren(this.root);

    this.feed = this.app.socket.feed(this.id, null, this.key);
    this.listen(this.feed, "state", (e) => this.onState(e.detail));
    this.listen(this.feed, "error", (e) => {
      if (this.chatPending && e.detail.id === this.chatPending.id) this.chatPending = null; // refused: kept in the input
      this.onError(e.detail);
    });
    this.listen(this.feed, "chat", (e) => this.addChat(e.detail));
    this.listen(this.feed, "history", () => { this.render(); this.fillOver(); });
    this.listen(this.feed, "rematch", (e) => this.onRematch(e.detail));
    this.listen(this.feed, "cancelled", () => { toast(t("match.cancelled")); this.app.navigate("#/"); });
    this.listen(this.app.socket, "status", (e) => {
      // an answer lost with the connection never comes: the resync is the answer
      if (e.detail !== "open") { this.busy = false; this.chain = null; this.view.pinned = null; }
      this.render(true);
    });
    this.listen(this.app.socket, "message", (e) => {
      // the post-match analysis moved on: ask for it now rather than at the next poll
      if (e.detail.type === "analysis" && e.detail.match === this.id && this.overParts) this.loadAnalysis();
    });
    this.listen(window, "resize", () => this.render());
    this.bindBoard();
    this.keyHandler = (e) => this.onKey(e);
    document.addEventListener("keydown", this.keyHandler);
    this.ticker = setInterval(() => this.tick(), 250);
    if (this.feed.game || this.feed.info) this.onState({ full: true, events: [] });
    else this.render();
  }

  unmount() {
    clearInterval(this.ticker);
    clearTimeout(this.frameTimer);
    clearTimeout(this.autoTimer);
    clearTimeout(this.analysisTimer);
    clearTimeout(this.ratingTimer);
    this.overParts = null;
    document.removeEventListener("keydown", this.keyHandler);
    for (const [target, type, fn] of this.handlers) target.removeEventListener(type, fn);
    this.dialog?.close();
    this.app.socket.drop(this.id);
  }

  listen(target, type, fn) {
    target.addEventListener(type, fn);
    this.handlers.push([target, type, fn]);
  }

  buildOptionsMenu() {
    const o = this.app.options;
    const box = h("section", { class: "card" });
    const details = h("details", { class: "options-menu" }, h("summary", {}, t("options.title")));
    const check = (key, label, note) => {
      const input = h("input", { type: "checkbox", "data-option": key, checked: !!o[key], onchange: () => {
        this.app.saveOptions({ [key]: input.checked });
        this.optionChanged();
      } });
      return h("label", { class: "check" }, input, h("span", {}, label, note ? h("span", { class: "muted small" }, ` ${note}`) : null));
    };
    const quality = h("select", { "data-option": "graphics", onchange: () => { this.app.saveOptions({ graphics: quality.value }); this.optionChanged(); } },
      h("option", { value: "high", selected: o.graphics !== "low" }, t("options.graphics_high")),
      h("option", { value: "low", selected: o.graphics === "low" }, t("options.graphics_low")));
    details.append(h("div", { class: "stack" },
      check("confirm_turn", t("options.confirm_turn")),
      check("auto_roll", t("options.auto_roll"), t("options.auto_roll_note")),
      check("auto_bearoff", t("options.auto_bearoff")),
      check("tap_longest", t("options.tap_longest")),
      check("flip", t("options.flip")),
      check("numbering", t("options.numbering")),
      check("sound", t("options.sound")),
      h("label", { class: "field" }, h("span", {}, t("options.graphics")), quality)));
    box.append(details);
    return box;
  }

  syncOptionInputs() {
    for (const input of this.optionsBox.querySelectorAll("[data-option]")) {
      const value = this.app.options[input.dataset.option];
      if (input.type === "checkbox") input.checked = !!value;
      else input.value = value;
    }
  }

  toggleOption(key) {
    this.app.saveOptions({ [key]: !this.app.options[key] });
    this.syncOptionInputs();
    this.optionChanged();
  }

  /** An option changed mid-match: it applies from the next action, without a reload (the
   *  server reads confirm and auto-roll at each turn, and acts at once on a change). */
  optionChanged() {
    this.render(true);
    this.maybeAuto();
  }

  // -- what the server said ------------------------------------------------------------

  get game() { return this.feed.game; }
  get info() { return this.feed.info; }
  get you() { return this.feed.you; }

  onState({ full, events }) {
    this.busy = false;
    this.view.pinned = null;
    if (full) {
      this.frames = [];
      this.frame = null;
      if (this.feed.v > 0) this.feed.backfill(); // the moves so far, for the move list
      for (const m of this.feed.chat) this.addChat(m, false);
    }
    // a picked checker that cannot move any more (the turn went on, or ended) is dropped
    if (this.selected !== null && !(this.moving && this.legal[String(this.selected)])) this.selected = null;
    this.noteTurnStart();
    this.noteClock();
    const before = this.frame?.board || this.prevBoard;
    this.queueFrames(before, events);
    if (events.length) this.setMessage(""); // news from the server replaces old advice
    for (const event of events) this.onEvent(event);
    this.prevBoard = this.game?.board || null;
    if (this.chain) this.continueChain();
    this.render();
    this.maybeDialog();
    this.maybeAuto();
  }

  /** The match's "winner rolls anew" rule, from its info (null before the info came). */
  get anew() {
    return this.info?.winner_rolls_anew ?? null;
  }

  /** The board's feedback (last move, last dice, opening) from every event held. */
  feedback() {
    const events = this.feed.events;
    if (this.fbEvents !== events || this.fbLength !== events.length || this.fbAnew !== this.anew) {
      this.fbEvents = events;
      this.fbLength = events.length;
      this.fbAnew = this.anew;
      this.fb = feedbackOf(events, this.anew);
    }
    return this.fb;
  }

  pace() {
    return PACE[this.app.options.graphics === "low" ? "low" : "high"];
  }

  queueFrames(before, events) {
    // Show what the others did one step at a time: each throw of the opening (ties too),
    // their roll, then each checker they move (each an event the server sent).
    if (!before || !this.game || !events.length) return;
    const all = this.feed.events;
    let fb = all.length >= events.length && all[all.length - 1] === events[events.length - 1]
      ? feedbackOf(all.slice(0, all.length - events.length), this.anew) : this.feedback();
    let board = before.slice();
    if (this.frame) {
      // more news while frames play: they follow the frames still queued
      const tail = this.frames.length ? this.frames[this.frames.length - 1] : this.frame;
      fb = tail.fb;
      board = tail.board.slice();
    }
    const frames = this.frames.slice();
    let shows = false;
    let prev = null;
    for (const e of events) {
      fb = reduceFeedback(fb, e, this.anew);
      const theirs = e.player !== this.you;
      if (e.type === "checker_moved" || e.type === "step_undone") {
        const next = applyMove(board, e.player, e.move, { reverse: e.type === "step_undone" });
        if (!next) return; // not what we hold: just show the server's board
        board = next;
        frames.push({ board, fb, kind: theirs ? "move" : "own" });
        shows ||= theirs;
      } else if (e.type === "dice_rolled" && theirs && !(prev?.type === "opening_rolled")) {
        frames.push({ board, fb, kind: "roll" });
        shows = true;
      } else if (e.type === "opening_rolled") {
        for (const pair of e.throws) frames.push({ board, fb, kind: "opening", throw: { dice: pair, tie: pair[0] === pair[1] } });
        shows = true;
      } else if (e.type === "game_started" && (frames.length || this.frame)) {
        board = INITIAL.slice();
        frames.push({ board, fb, kind: "game" });
      }
      prev = e;
    }
    if (!shows) return;
    this.frames = frames;
    if (!this.frame) {
      this.frame = { board: before, fb: this.feedback(), kind: "start" };
      clearTimeout(this.frameTimer);
      this.frameTimer = setTimeout(() => this.nextFrame(), 60);
    }
  }

  nextFrame() {
    const frame = this.frames.shift();
    if (!frame) {
      this.frame = null;
      this.render();
      this.maybeDialog();
      this.maybeAuto();
      return;
    }
    this.frame = frame;
    // the pace follows the graphics option of the moment
    const pause = this.pace()[frame.kind] ?? 0;
    this.paced.push({ kind: frame.kind, pause });
    if (this.paced.length > 80) this.paced.shift();
    if (frame.kind === "move") sound.checker();
    this.render();
    this.frameTimer = setTimeout(() => this.nextFrame(), pause);
  }

  get animating() {
    return this.frame !== null;
  }

  onEvent(e) {
    const text = this.describe(e, this.lastEvent);
    this.lastEvent = e;
    if (text) announce(text);
    switch (e.type) {
      case "dice_rolled":
      case "opening_rolled":
        sound.dice();
        if ((e.type === "dice_rolled" ? e.player : e.first) === this.you) this.setMessage("");
        break;
      case "checker_moved":
        if (e.player === this.you) sound.checker();
        if (e.player === this.you && this.hintShown?.preview) { // the board moved on from the drawn play
          this.hintShown.preview = null;
          this.drawHint();
        }
        break;
      case "turn_ended":
        if (e.player !== this.you && this.you !== null) sound.turn();
        break;
      case "match_ended":
        this.matchEnd = e; // the update that holds it brings the info: result, ratings
        sound.end();
        break;
      case "game_ended":
        sound.end();
        break;
      default:
        break;
    }
  }

  name(seat) {
    return this.info?.seats?.[seat]?.name ?? (this.info?.status === "open" ? "…" : t("match.player", { seat: seat + 1 }));
  }

  describe(e, prev = null) {
    return describeEvent(e, prev, (seat) => this.name(seat), this.anew);
  }

  onError(error) {
    this.busy = false;
    this.view.pinned = null;
    this.chain = null;
    const text = refusalText(error);
    this.setMessage(text, true);
    toast(text, { error: true });
    this.render();
  }

  setMessage(text, error = false) {
    this.message = text;
    this.messageError = error;
  }

  addChat(m, scroll = true) {
    const pending = this.chatPending;
    if (pending && m.seat === this.feed.you && m.text === pending.text) {
      this.chatPending = null; // delivered: clear the input unless the player typed on
      if (this.chatInput.value.trim() === pending.text) this.chatInput.value = "";
    }
    this.chatLines.append(h("div", {}, h("strong", {}, `${m.from}: `), m.text));
    if (scroll) this.chatLines.scrollTop = this.chatLines.scrollHeight;
  }

  onRematch(m) {
    if (m.by === this.app.me?.name) return;
    ask({
      title: t("match.rematch_offered", { name: m.by }),
      buttons: [{ label: t("match.decline"), value: "no" }, { label: t("match.join_rematch"), value: "yes", class: "primary" }],
    }).then(async (answer) => {
      if (answer !== "yes") return;
      try {
        await api("POST", `/api/games/${m.new}/join`, {});
        this.app.navigate(`#/match/${m.new}`);
      } catch (err) { toast(err.message, { error: true }); }
    });
  }

  // -- derived facts (from the server's state only) -----------------------------------

  get isPlayer() { return this.you !== null && this.you !== undefined; }

  get myTurn() {
    return this.isPlayer && this.game && this.game.turn === this.you;
  }

  get phase() { return this.game?.phase; }

  get moving() {
    return this.myTurn && this.phase === "moving" && !this.animating;
  }

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
    return this.info?.status === "playing" && this.game && this.phase !== "match_over";
  }

  /** Where the checker on `src` can go: Map dest -> {dice}, the server's `reach` (the
   *  dice to send as steps, in order). */
  reachOf(src) {
    const out = new Map();
    if (!this.moving) return out;
    const reach = this.game.reach?.[String(src)] || {};
    for (const [dest, dice] of Object.entries(reach)) out.set(Number(dest), { dice: dice.slice() });
    return out;
  }

  sources() {
    return Object.keys(this.legal).map(Number);
  }

  // -- proposing actions -------------------------------------------------------------

  send(type, fields = {}) {
    if (this.busy) return false;
    const id = this.feed.act(type, fields);
    if (id === null) {
      this.setMessage(t("error.offline"), true);
      this.render();
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

  sendStep(from, die) {
    return this.send("step", { from, die });
  }

  /** What the options do by themselves: auto bear-off (the server itself rolls for
   *  auto-roll and ends the turn for a player who does not confirm). */
  maybeAuto() {
    if (!this.isPlayer || this.busy || this.animating) return;
    this.maybeAutoBearoff();
  }

  /** Move the checker on `src` along `dice` (each a step the server checks). */
  movePath(src, dice) {
    if (!dice.length) return;
    const dest = (this.legal[String(src)] || {})[String(dice[0])];
    if (dest === undefined) return;
    this.chain = dice.length > 1 ? { from: dest, dice: dice.slice(1) } : null;
    this.selected = null;
    this.hover = null;
    this.setMessage("");
    if (!this.sendStep(src, dice[0])) this.chain = null;
  }

  /** The longest move of the checker on `src`: the `reach` destination using most dice. */
  clickMove(src) {
    let best = null;
    for (const [dest, r] of this.reachOf(src)) {
      const key = [r.dice.length, -dest];
      if (!best || key[0] > best.key[0] || (key[0] === best.key[0] && key[1] > best.key[1])) best = { dest, r, key };
    }
    if (best) this.movePath(src, best.r.dice);
  }

  continueChain() {
    const chain = this.chain;
    this.chain = null;
    if (!chain || !this.moving) return;
    const dest = (this.legal[String(chain.from)] || {})[String(chain.dice[0])];
    if (dest === undefined) return; // the server's reach said it goes on: the board moved meanwhile
    this.chain = chain.dice.length > 1 ? { from: dest, dice: chain.dice.slice(1) } : null;
    this.sendStep(chain.from, chain.dice[0]);
  }

  /** Why the checker on `src` cannot go to `dest` (the player's words, from what the
   *  server sent: the legal steps and the dice left). */
  whyNot(src, dest) {
    if (!this.isPlayer) return t("move.spectator");
    if (!this.myTurn) return t("move.not_your_turn");
    if (this.phase === "before_roll") return t("move.roll_first");
    if (this.phase !== "moving") return t("move.not_now");
    if (this.busy) return t("move.wait");
    const legal = this.legal;
    if (!Object.keys(legal).length) return t("move.no_moves");
    if (!legal[String(src)]) {
      if (legal["25"] && src !== 25) return t("move.bar_first");
      return t("move.checker_stuck");
    }
    if (dest === null) return "";
    if (dest === 0) return t("move.cannot_bear_off");
    if (dest === 25) return t("move.not_to_bar");
    if (dest > src) return t("move.backwards");
    return t("move.cannot_reach", { point: dest });
  }

  tryMove(src, dest) {
    const r = this.reachOf(src).get(dest);
    if (r) {
      this.movePath(src, r.dice);
      return true;
    }
    this.setMessage(this.whyNot(src, dest), true);
    sound.alarm();
    this.render();
    return false;
  }

  maybeAutoBearoff() {
    clearTimeout(this.autoTimer);
    if (!this.app.options.auto_bearoff || !this.moving || this.busy || this.chain) return;
    const legal = this.legal;
    const entries = Object.entries(legal);
    if (!entries.length) return;
    // only when every legal step bears a checker off: then nothing is left to choose
    const all = entries.every(([, steps]) => Object.values(steps).every((dest) => dest === 0));
    if (!all) return;
    let best = null;
    for (const [src, steps] of entries) {
      for (const die of Object.keys(steps)) {
        if (!best || Number(die) > best.die) best = { src: Number(src), die: Number(die) };
      }
    }
    this.autoTimer = setTimeout(() => {
      if (this.moving && !this.busy) this.sendStep(best.src, best.die);
    }, 350);
  }

  // -- hints: practice against the computer ----------------------------------------------

  /** Hints are for practice: only in an unrated match without a clock against the computer
   *  (the server refuses them for a position of a rated match in play: 403 rated_match_live). */
  hintAllowed() {
    const info = this.info;
    return !!info && info.bot !== null && info.bot !== undefined && (info.clock ?? "none") === "none" && !info.rated;
  }

  /** The position the turn started from (a hint ranks whole plays from there), noted when
   *  the dice are in and no checker has moved yet; forgotten once the turn is over. */
  noteTurnStart() {
    const g = this.game;
    if (!g || g.phase !== "moving" || !this.myTurn || !g.dice) { this.turnStart = null; return; }
    const total = g.dice[0] === g.dice[1] ? 4 : 2;
    if ((g.dice_left || []).length === total) this.turnStart = { position_id: g.position_id, dice: g.dice.join("") };
  }

  /** What a hint asks the server now, or null: the ranked plays of the roll while moving
   *  (`undo` when the turn's start is not known here: after a reload mid-move); before the
   *  roll, the cube decision (POST /api/eval with the GNU Backgammon Match ID), or only the
   *  chances when the game has no cube to turn. */
  hintRequest() {
    const g = this.game;
    if (!this.hintAllowed() || !this.isPlayer || !this.isLive() || !this.myTurn || this.animating) return null;
    if (g.phase === "moving") {
      if (!this.turnStart) return { kind: "undo", key: "undo" };
      const { position_id, dice } = this.turnStart;
      const body = { position_id, dice, plies: HINT_PLIES };
      // the plays valued at the score and cube (the Match ID's dice do not matter here)
      if (g.length || g.cube?.enabled) body.match_id = gnubgMatchId(g, this.info);
      return { kind: "plays", key: `plays:${g.game}:${position_id}:${dice}`, path: "/api/hint", body };
    }
    if (g.phase === "before_roll") {
      const body = { position_id: g.position_id, plies: HINT_PLIES };
      if (g.cube?.enabled) {
        body.match_id = gnubgMatchId(g, this.info);
        body.beavers = !!this.info.beavers;
      }
      return { kind: "cube", key: `cube:${g.game}:${g.position_id}:${body.match_id || ""}`, path: "/api/eval", body };
    }
    return null;
  }

  async hint() {
    const request = this.hintRequest();
    if (!request || this.hintShown?.pending) return;
    if (request.kind === "undo") {
      this.setMessage(t("hint.undo_first"), true);
      this.render();
      return;
    }
    if (this.hintShown?.key === request.key && !this.hintShown.error) return; // on screen already
    this.hintShown = { key: request.key, kind: request.kind, pending: true };
    this.drawHint();
    this.render();
    let answer = null;
    let error = null;
    try {
      answer = await api("POST", request.path, request.body);
    } catch (err) {
      error = err.code === "rated_match_live" ? t("hint.refused_rated") : t("hint.failed", { message: err.message });
    }
    if (this.hintShown?.key !== request.key) return; // the game moved on meanwhile
    this.hintShown = { key: request.key, kind: request.kind, answer, error, preview: null };
    this.drawHint();
    this.render();
  }

  /** A hint stays while its decision is the one on the board (a play's hint for the whole
   *  turn, while checkers are moved); then it goes. */
  dropStaleHint() {
    if (this.hintShown && this.hintRequest()?.key !== this.hintShown.key) this.closeHint();
  }

  closeHint() {
    this.hintShown = null;
    this.drawHint();
  }

  drawHint() {
    const shown = this.hintShown;
    const box = this.hintBox;
    if (!shown) {
      box.hidden = true;
      box.replaceChildren();
      return;
    }
    const close = h("button", { type: "button", class: "hint-close", "data-act": "hint-close", "aria-label": t("hint.close"),
      onclick: () => { this.closeHint(); this.render(); } }, "×");
    let body;
    if (shown.pending) body = h("p", { class: "muted" }, t("hint.thinking"));
    else if (shown.error) body = h("p", { class: "error", "data-hint-error": "" }, shown.error);
    else if (shown.kind === "plays") body = this.hintPlays(shown.answer);
    else body = this.hintCube(shown.answer);
    box.replaceChildren(h("div", { class: "hint-head" },
      h("h2", {}, shown.kind === "plays" ? t("hint.plays_title") : t("hint.cube_title")), close), body);
    box.hidden = false;
  }

  /** The best plays, best first, with their equity and what each gives up to the best; a
   *  click (or focus) draws the play on the board as arrows. */
  hintPlays(answer) {
    const plays = answer.plays.slice(0, HINT_PLAYS);
    if (!plays.length || !plays[0].play) return h("p", {}, t("hint.no_play"));
    const best = plays[0].equity;
    const list = h("ol", { class: "hint-plays" });
    for (const [i, p] of plays.entries()) {
      const preview = { seat: this.you, moves: playMoves(p.play) };
      const button = h("button", { type: "button", class: "hint-play", "data-play": p.play, "data-equity": p.equity, "aria-pressed": "false" },
        h("span", { class: "hint-move" }, p.play),
        h("span", { class: "hint-equity" }, signed(p.equity)),
        h("span", { class: "hint-diff muted" }, i ? signed(p.equity - best) : ""));
      const show = () => {
        if (!this.hintShown || this.hintShown.preview === preview) return;
        this.hintShown.preview = preview;
        for (const b of list.querySelectorAll(".hint-play")) b.setAttribute("aria-pressed", String(b === button));
        this.render();
      };
      button.addEventListener("click", show);
      button.addEventListener("focus", show);
      list.append(h("li", {}, button));
    }
    return h("div", {}, list, h("p", { class: "muted small" }, t("hint.plays_note", { plies: answer.plies })));
  }

  /** Before the roll: the right cube action with the equity of each choice, and the chances. */
  hintCube(answer) {
    const parts = [];
    const cube = answer.cube;
    if (cube?.cube_available) {
      parts.push(h("p", { class: "hint-action", "data-cube-action": cube.action }, t(`hint.cube_${cube.action.replace(/-/g, "_")}`)));
      const e = cube.equities;
      const rows = [["hint.no_double", e.no_double], ["hint.double_take", e.double_take], ["hint.double_pass", e.double_pass]];
      parts.push(h("dl", { class: "hint-equities" }, rows.flatMap(([key, value]) => [h("dt", {}, t(key)), h("dd", {}, signed(value))])));
    } else if (cube) {
      parts.push(h("p", { class: "hint-action", "data-cube-action": "unavailable" }, t("hint.cube_unavailable")));
    }
    const p = answer.probabilities;
    parts.push(h("p", { "data-win": p.win }, t("hint.chances", { win: percent(p.win), gammon: percent(p.win_gammon), lose_gammon: percent(p.lose_gammon) })));
    parts.push(h("p", { class: "muted small" }, t("hint.equity", { equity: signed(answer.equity), plies: answer.plies })));
    return h("div", {}, parts);
  }

  // -- dialogs ------------------------------------------------------------------------

  closeDialog() {
    if (this.dialog?.open) this.dialog.close();
    this.dialog = null;
    this.dialogKey = null;
  }

  maybeDialog() {
    if (this.animating) return;
    const g = this.game;
    let key = null;
    if (g && this.isPlayer) {
      if (g.phase === "cube_offered" && g.turn !== this.you) key = `cube:${this.feed.v}`;
      else if (g.phase === "resign_offered" && g.turn !== this.you) key = `resign:${this.feed.v}`;
      else if (g.phase === "match_over" || this.info?.status === "finished") key = "over";
    } else if (g && (g.phase === "match_over")) key = "over";
    if (key === this.dialogKey) return;
    if (this.dialogKey && this.dialogKey !== "over") this.closeDialog();
    if (!key || (key === "over" && this.overShown)) return;
    this.dialogKey = key;
    if (key.startsWith("cube:")) this.cubeDialog();
    else if (key.startsWith("resign:")) this.answerResignDialog();
    else this.overDialog();
  }

  modal(title, body, buttons, onAnswer) {
    const dialog = h("dialog", { "aria-labelledby": "dlg-title" });
    const actions = h("div", { class: "actions" });
    for (const b of buttons) {
      actions.append(h("button", { type: "button", class: b.class || "", "data-value": b.value, onclick: () => dialog.close(b.value) }, b.label));
    }
    dialog.append(h("h2", { id: "dlg-title" }, title), ...body, actions);
    dialog.addEventListener("close", () => {
      const value = dialog.returnValue;
      dialog.remove();
      if (this.dialog === dialog) this.dialog = null;
      onAnswer(value || null);
    });
    document.body.append(dialog);
    this.dialog = dialog;
    dialog.showModal();
    (actions.querySelector(".primary") || actions.querySelector("button"))?.focus();
    return dialog;
  }

  cubeDialog() {
    const g = this.game;
    const value = g.cube.value * 2;
    const buttons = [
      { label: t("cube.drop"), value: "drop" },
      { label: t("cube.take"), value: "take", class: "primary" },
    ];
    if (g.can_beaver) buttons.splice(1, 0, { label: t("cube.beaver"), value: "beaver" });
    const body = [h("p", {}, t("cube.explain", { name: this.name(g.turn), value, lose: g.cube.value }))];
    this.modal(t("cube.offered", { value }), body, buttons, (answer) => {
      if (answer === "take" || answer === "drop" || answer === "beaver") this.send(answer);
      else this.dialogKey = null; // asked again on the next render
    });
  }

  answerResignDialog() {
    const g = this.game;
    const offer = g.resign_offer || { level: 1, player: g.turn };
    const points = offer.level * g.cube.value;
    const body = [h("p", {}, t("resign.explain_offer", { name: this.name(offer.player), level: t(LEVEL_KEYS[offer.level]), count: points }))];
    this.modal(t("resign.offered_title"), body, [
      { label: t("resign.reject"), value: "reject_resign" },
      { label: t("resign.accept"), value: "accept_resign", class: "primary" },
    ], (answer) => {
      if (answer) this.send(answer);
      else this.dialogKey = null;
    });
  }

  resignDialog() {
    if (!this.canResign()) return;
    const cube = this.game.cube.value;
    const levels = h("div", { class: "levels", role: "radiogroup", "aria-label": t("resign.choose") });
    let first = true;
    for (const level of [1, 2, 3]) {
      const disabled = level <= this.resignFloor;
      const input = h("input", { type: "radio", name: "level", value: level, disabled, checked: !disabled && first });
      if (!disabled) first = false;
      levels.append(h("label", {}, input, h("span", {}, `${t(LEVEL_KEYS[level])} — ${t("resign.points", { count: level * cube })}`)));
    }
    const body = [
      h("p", {}, t("resign.explain")),
      levels,
      h("p", { class: "muted small" }, t("resign.escalation")),
    ];
    const dialog = this.modal(t("resign.title"), body, [
      { label: t("common.cancel"), value: "" },
      { label: t("resign.offer"), value: "offer", class: "primary" },
    ], (answer) => {
      if (answer !== "offer") return;
      const chosen = dialog.querySelector("input[name=level]:checked");
      if (chosen) this.send("resign", { level: Number(chosen.value) });
    });
  }

  abandonDialog() {
    if (!this.isPlayer || !this.isLive()) return;
    const body = [h("p", { class: "warning" }, t("abandon.warning"))];
    this.modal(t("abandon.title"), body, [
      { label: t("common.cancel"), value: "", class: "primary" },
      { label: t("abandon.confirm"), value: "abandon", class: "danger" },
    ], (answer) => {
      if (answer === "abandon") { this.busy = false; this.send("abandon"); }
    });
  }

  /** The dialog at the end of a match: who won and how, the final score (a money session:
   *  the points won or lost), the ratings before and after (rated matches, as the server
   *  stored them), each side's error rate once the analysis is done, and the ways on:
   *  review, rematch, .mat download. Its parts fill in as the facts arrive. */
  overDialog() {
    this.overShown = true;
    const link = (href, label, act) => h("a", { class: "button", href, "data-act": act }, label);
    this.overParts = {
      how: h("p", { class: "over-how", "data-over": "how" }),
      score: h("p", { class: "over-score", "data-over": "score" }),
      ratings: h("div", { class: "over-ratings", "data-over": "ratings" }),
      analysis: h("div", { class: "over-analysis", "data-over": "analysis", "aria-live": "polite" }),
    };
    const links = h("p", { class: "over-links" },
      link(`#/review/${this.id}${this.query}`, t("over.review"), "review"),
      downloadLink(`/api/games/${this.id}/export.mat${this.query}`, `${this.id}.mat`, t("history.download")));
    const { how, score, ratings, analysis } = this.overParts;
    const buttons = [{ label: t("over.lobby"), value: "lobby" }, { label: t("over.replay"), value: "replay" }];
    if (this.isPlayer) buttons.push({ label: t("over.rematch"), value: "rematch", class: "primary" });
    else buttons.push({ label: t("common.close"), value: "close", class: "primary" });
    const dialog = this.modal("", [how, score, ratings, analysis, links], buttons, async (answer) => {
      this.overParts = null;
      clearTimeout(this.analysisTimer);
      clearTimeout(this.ratingTimer);
      if (answer === "lobby") this.app.navigate("#/");
      else if (answer === "replay") this.app.navigate(`#/replay/${this.id}${this.query}`);
      else if (answer === "rematch") {
        try {
          const info = await api("POST", `/api/games/${this.id}/rematch`);
          this.app.navigate(`#/match/${info.id}`);
        } catch (err) { toast(err.message, { error: true }); }
      }
    });
    dialog.classList.add("over-dialog");
    this.overParts.title = dialog.querySelector("h2");
    this.fillOver();
    this.loadRatings();
    this.loadAnalysis();
    this.app.refreshMe();
  }

  /** How the match ended, from the events held (the last game's end, the match's end) and
   *  the match info: {winner, score, reason, game} (`game`: the last game_ended, or null). */
  overFacts() {
    const events = this.feed.events;
    const ended = this.matchEnd || [...events].reverse().find((e) => e.type === "match_ended");
    const end = ended || this.info?.result || {};
    const g = this.game;
    const winner = end.winner ?? g?.winner ?? null;
    const score = end.score || g?.score || [0, 0];
    const upTo = ended ? events.indexOf(ended) : events.length;
    const game = [...events.slice(0, upTo < 0 ? events.length : upTo)].reverse().find((e) => e.type === "game_ended") || null;
    return { winner, score, reason: end.reason ?? null, game };
  }

  fillOver() {
    const parts = this.overParts;
    if (!parts) return;
    const { winner, score, reason, game } = this.overFacts();
    const kind = this.info?.kind ?? "match";
    if (winner === null) return;
    const name = this.name(winner);
    const loser = this.name(1 - winner);
    // the title: who won (a money session: the points won or lost)
    let title;
    if (kind === "money") {
      const seat = this.isPlayer ? this.you : (score[0] >= score[1] ? 0 : 1);
      const net = score[seat] - score[1 - seat];
      if (net === 0) title = t("over.money_even");
      else if (this.isPlayer) title = t(net > 0 ? "over.money_you_won" : "over.money_you_lost", { count: Math.abs(net) });
      else title = t("over.money_won", { name: this.name(seat), count: net });
    } else if (!this.isPlayer) title = t(kind === "single" ? "over.winner_game" : "over.winner", { name });
    else if (kind === "single") title = winner === this.you ? t("over.you_won_game") : t("over.you_lost_game");
    else title = winner === this.you ? t("over.you_won") : t("over.you_lost");
    parts.title.textContent = title;
    // how: the way the last game (or the match) was lost
    const points = game ? t("over.points", { count: game.points }) : "";
    let how = "";
    if (reason === "abandon" || reason === "timeout") {
      const forfeit = game && game.kind === reason; // the game in play was lost with the match
      if (kind === "money") how = t(forfeit ? `over.how_${reason}_money` : `over.how_${reason}_between`, { name, loser, points });
      else how = t(`over.how_${reason}`, { name, loser });
    } else if (game) {
      how = t(`over.how_${game.kind}`, { name: this.name(game.winner), loser: this.name(1 - game.winner), points });
      if (kind === "match") how = `${t("over.last_game")} ${how}`;
    }
    parts.how.textContent = how;
    parts.how.dataset.reason = reason || "";
    parts.how.dataset.kind = game?.kind || "";
    parts.score.textContent = t("over.score", { a: this.name(0), b: this.name(1), score: score.join("–") });
    this.fillRatings();
    this.fillAnalysis();
  }

  /** Rated matches: each player's rating before and after, as the server's rating history
   *  holds it for this match (asked again a few times while it is not there yet). */
  async loadRatings(tries = 6) {
    if (!this.overParts || !this.info?.rated) return;
    const seats = (this.info.seats || []).filter((s) => s && s.kind === "user");
    const found = {};
    for (const s of seats) {
      try {
        const answer = await api("GET", `/api/users/${encodeURIComponent(s.name)}/ratings`);
        const change = answer.history.find((c) => c.match === this.id);
        if (change) found[s.name] = change;
      } catch { /* asked again below */ }
    }
    if (!this.overParts) return;
    this.ratingChanges = found;
    this.fillRatings();
    if (Object.keys(found).length < seats.length && tries > 1) {
      this.ratingTimer = setTimeout(() => this.loadRatings(tries - 1), 1500);
    }
  }

  fillRatings() {
    const box = this.overParts?.ratings;
    if (!box) return;
    // bot, guest and money play leave ratings as they were: say so, not silence
    if (!this.info?.rated) { box.replaceChildren(h("p", { class: "muted", "data-over": "unrated" }, t("game.unrated"))); return; }
    const fmt = new Intl.NumberFormat(language(), { minimumFractionDigits: 1, maximumFractionDigits: 1, useGrouping: false });
    const rows = (this.info.seats || []).filter((s) => s && s.kind === "user").map((s) => {
      const change = this.ratingChanges?.[s.name];
      return h("li", { "data-rating": s.name },
        change ? t("over.rating_change", { name: s.name, before: fmt.format(change.before), after: fmt.format(change.after) })
          : t("over.rating_pending", { name: s.name }));
    });
    box.replaceChildren(h("h3", {}, t("over.ratings")), h("ul", { class: "plain" }, rows));
  }

  /** The post-match analysis: its progress while it runs (polled, and asked at once when
   *  the socket says it moved), then each side's error rate. */
  async loadAnalysis() {
    clearTimeout(this.analysisTimer);
    if (!this.overParts || this.analysis || this.analysisLoading) return;
    this.analysisLoading = true;
    let answer = null;
    let retry = 2000;
    try {
      answer = await api("GET", `/api/games/${this.id}/analysis${this.query}`);
      if (answer.players) this.analysis = answer;
      else this.analysisState = { progress: answer };
    } catch (err) {
      if (err.code === "analysis_busy") { this.analysisState = { busy: true }; retry = 30_000; }
      else { this.analysisState = { error: err.message }; retry = 0; }
    } finally {
      this.analysisLoading = false;
    }
    if (!this.overParts) return;
    this.fillAnalysis();
    if (!this.analysis && retry) this.analysisTimer = setTimeout(() => this.loadAnalysis(), retry);
  }

  fillAnalysis() {
    const box = this.overParts?.analysis;
    if (!box) return;
    const a = this.analysis;
    if (!a) {
      const state = this.analysisState || {};
      let text = t("over.analysing", { percent: 0 });
      if (state.error) text = t("over.analysis_failed", { message: state.error });
      else if (state.busy) text = t("over.analysis_busy");
      else if (state.progress) {
        const { done, total } = state.progress;
        text = t("over.analysing", { percent: total ? Math.round((100 * done) / total) : 0 });
      }
      box.replaceChildren(h("p", { class: "muted", "data-analysis": state.error ? "failed" : "running" }, text));
      return;
    }
    const one = new Intl.NumberFormat(language(), { minimumFractionDigits: 1, maximumFractionDigits: 1 });
    const rows = a.players.map((p) => h("tr", { "data-player": p.player },
      h("th", { scope: "row" }, this.name(p.player)),
      h("td", { "data-stat": "error_rate" }, one.format(p.error_rate_mp)),
      h("td", { "data-stat": "pr" }, one.format(p.performance_rating)),
      h("td", {}, String(p.errors)),
      h("td", {}, String(p.blunders))));
    box.replaceChildren(h("table", { class: "over-stats", "data-analysis": "done" },
      h("caption", {}, t("over.analysis_title")),
      h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", { scope: "col" }, t("over.error_rate")),
        h("th", { scope: "col" }, t("over.pr")), h("th", { scope: "col" }, t("over.errors")), h("th", { scope: "col" }, t("over.blunders")))),
      h("tbody", {}, rows)));
  }

  // -- input: pointer, keyboard --------------------------------------------------------

  bindBoard() {
    const svg = this.svg;
    svg.addEventListener("pointerdown", (e) => this.onPointerDown(e));
    svg.addEventListener("pointermove", (e) => this.onPointerMove(e));
    svg.addEventListener("pointerup", (e) => this.onPointerUp(e));
    svg.addEventListener("pointercancel", () => this.cancelDrag());
    svg.addEventListener("pointerleave", () => { if (!this.drag && this.hover !== null) { this.hover = null; this.render(); } });
    svg.addEventListener("click", (e) => {
      const action = e.target.closest?.("[data-action]")?.dataset.action;
      if (action === "roll") this.roll();
      if (action === "confirm") this.confirm();
    });
    svg.addEventListener("keydown", (e) => this.onBoardKey(e));
    // a tap anywhere off the board drops a checker picked by a tap
    this.listen(document, "pointerdown", (e) => {
      if (this.selected !== null && this.tapsPick(e) && !svg.contains(e.target)) {
        this.selected = null;
        this.setMessage("");
        this.render();
      }
    });
    svg.addEventListener("focusin", (e) => {
      const slot = e.target.dataset?.slot;
      if (slot !== undefined && this.cursor !== Number(slot)) { this.cursor = Number(slot); this.render(); }
    });
  }

  /** Taps pick (a touch screen, unless the player chose "a tap plays the longest move"):
   *  a tap on a checker picks it and lights where it can go, a tap on a lit point (the whole
   *  point, or the tray) moves it there, a tap on it again or anywhere else drops it. */
  tapsPick(e) {
    return e.pointerType !== "mouse" && !this.app.options.tap_longest;
  }

  onPointerDown(e) {
    if (e.button !== 0 || e.target.closest?.("[data-action]")) return;
    const slot = this.view.slotAt(e.clientX, e.clientY);
    if (this.tapsPick(e) && this.selected !== null && slot !== this.selected) {
      // the second tap: a lit point takes the picked checker; another checker that can move
      // is picked instead (on the pointerup below, or dragged); anywhere else drops the pick
      const src = this.selected;
      const target = slot !== null && this.reachOf(src).has(slot);
      const other = !target && slot !== null && slot !== 0 && this.moving && !!this.legal[String(slot)];
      if (!other) {
        e.preventDefault();
        this.selected = null;
        this.setMessage("");
        if (target && !this.busy) this.tryMove(src, slot);
        this.render();
        return;
      }
    }
    if (slot === null || slot === 0) return;
    const node = this.isPlayer ? this.view.topChecker(this.you, slot) : null;
    if (!this.moving || !this.legal[String(slot)]) {
      if (node && this.isPlayer && this.you !== null) {
        // a checker of mine that cannot move now: say why
        this.setMessage(this.whyNot(slot, null), true);
        this.render();
      }
      return;
    }
    if (!node || this.busy) return;
    e.preventDefault();
    svg_capture(this.svg, e.pointerId);
    this.drag = { src: slot, node, x0: e.clientX, y0: e.clientY, moved: false, origin: node.style.transform };
    this.hover = slot;
    this.render();
  }

  onPointerMove(e) {
    const d = this.drag;
    if (!d) {
      if (e.pointerType === "mouse" && this.moving) {
        const slot = this.view.slotAt(e.clientX, e.clientY);
        const hover = slot !== null && this.legal[String(slot)] ? slot : null;
        if (hover !== this.hover) { this.hover = hover; this.render(); }
      }
      return;
    }
    if (!d.moved && Math.hypot(e.clientX - d.x0, e.clientY - d.y0) < 6) return;
    d.moved = true;
    const p = this.view.toSvg(e.clientX, e.clientY);
    if (!d.node.classList.contains("dragging")) {
      d.node.classList.add("dragging");
      this.view.pinned = d.node; // the board leaves it where the pointer is
      d.node.parentNode.appendChild(d.node); // drawn above the other checkers
    }
    d.node.style.transform = `translate(${p.x}px, ${p.y}px)`;
  }

  onPointerUp(e) {
    const d = this.drag;
    if (!d) return;
    this.drag = null;
    d.node.classList.remove("dragging");
    if (!d.moved) {
      d.node.style.transform = d.origin;
      if (this.tapsPick(e)) this.tapPick(d.src);
      else this.clickMove(d.src);
      this.render();
      return;
    }
    const dest = this.view.slotAt(e.clientX, e.clientY);
    if (dest === null || dest === d.src) {
      this.view.pinned = null;
      d.node.style.transform = d.origin; // back where it was
      this.hover = null;
      this.render();
      return;
    }
    if (this.tryMove(d.src, dest)) {
      // it stays where it was dropped until the server answers: then it settles on its
      // point (accepted) or slides back (refused)
    } else {
      this.view.pinned = null;
      d.node.style.transform = d.origin; // snap back (with the transition)
    }
    this.hover = null;
    this.render();
  }

  /** A tap on a checker that can move: pick it (its destinations lit), or drop the pick
   *  when it was already picked. */
  tapPick(src) {
    this.hover = null;
    if (this.selected === src) {
      this.selected = null;
      this.setMessage("");
      return;
    }
    this.selected = src;
    const targets = [...this.reachOf(src).keys()].map((d) => (d === 0 ? t("board.off") : d));
    this.setMessage(t("move.selected", { point: src === 25 ? t("board.bar") : src, targets: targets.join(", ") }));
    announce(this.message);
  }

  cancelDrag() {
    if (!this.drag) return;
    this.view.pinned = null;
    this.drag.node.classList.remove("dragging");
    this.drag.node.style.transform = this.drag.origin;
    this.drag = null;
    this.hover = null;
    this.render();
  }

  onBoardKey(e) {
    const slot = e.target.dataset?.slot;
    if (slot === undefined) return;
    const q = Number(slot);
    if (e.key.startsWith("Arrow")) {
      e.preventDefault();
      this.cursor = slotNeighbour(q, e.key, !!this.app.options.flip);
      this.render();
      this.view.focusSlot(this.cursor);
      return;
    }
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      e.stopPropagation();
      this.cursor = q;
      this.keySelect(q);
      return;
    }
    if (e.key === "Escape" && this.selected !== null) {
      e.stopPropagation();
      this.selected = null;
      this.setMessage("");
      this.render();
    }
  }

  keySelect(q) {
    if (this.selected === null) {
      if (this.moving && this.legal[String(q)]) {
        this.selected = q;
        const targets = [...this.reachOf(q).keys()].map((d) => (d === 0 ? t("board.off") : d));
        this.setMessage(t("move.selected", { point: q === 25 ? t("board.bar") : q, targets: targets.join(", ") }));
        announce(this.message);
      } else {
        this.setMessage(this.whyNot(q, null), true);
        announce(this.message);
      }
      this.render();
      this.view.focusSlot(q);
      return;
    }
    const src = this.selected;
    if (q === src) {
      // a second Enter on the same checker plays its longest move
      this.selected = null;
      this.clickMove(src);
      this.render();
      return;
    }
    if (this.reachOf(src).has(q)) {
      this.selected = null;
      this.tryMove(src, q);
      this.render();
      this.view.focusSlot(q);
      return;
    }
    if (this.moving && this.legal[String(q)]) {
      this.selected = null;
      this.keySelect(q);
      return;
    }
    this.tryMove(src, q);
    this.view.focusSlot(q);
  }

  onKey(e) {
    // page shortcuts (not while typing, not with a dialog open)
    if (e.defaultPrevented || e.ctrlKey && e.key !== "z" || e.metaKey || e.altKey) return;
    const tag = (e.target.tagName || "").toLowerCase();
    if (["input", "textarea", "select"].includes(tag) || document.querySelector("dialog[open]")) return;
    const key = e.key.toLowerCase();
    if (key === "r") this.roll();
    else if (key === "d" && !e.ctrlKey) this.double();
    else if (key === "u" || (e.ctrlKey && key === "z")) this.undo();
    else if (key === "c") this.confirm();
    else if (key === "f") this.toggleOption("flip");
    else if (key === "b") { this.cursor = this.cursor ?? 1; this.render(); this.view.focusSlot(this.cursor); }
    else return;
    e.preventDefault();
  }

  // -- clocks ------------------------------------------------------------------------

  /** Polish clock: the move and game clocks run together, so while a side's move runs its
   *  game clock minus its move clock stays the same: the game time a move time-out leaves. */
  noteClock() {
    const clock = this.feed.clock;
    if (!clock || clock.kind !== "polish" || clock.running === null || clock.running === undefined) return;
    const side = clock.sides[clock.running];
    if (!side.expired) this.lastReading[clock.running] = Math.max(0, side.bank_left - side.action_left);
  }

  clockOf(seat) {
    const clock = this.feed.clock;
    if (!clock) return null;
    const side = clock.sides[seat];
    const running = clock.running === seat && !side.expired;
    const elapsed = running ? (performance.now() - this.feed.clockAt) / 1000 : 0;
    const italian = clock.kind !== "polish";
    let a;
    let b;
    let active;
    if (italian) {
      a = Math.max(0, side.action_left - elapsed);
      const over = Math.max(0, elapsed - side.action_left);
      b = Math.max(0, side.bank_left - over);
      active = running ? (a > 0 ? "a" : "b") : null;
    } else {
      a = Math.max(0, side.action_left - elapsed);
      b = Math.max(0, side.bank_left - elapsed);
      active = running ? "a" : null;
      // ran out of move time, the time-out not yet in: the game clock keeps what it had when
      // the move began, less the move clock (once the time-out is in, the server says so)
      if (side.expired && clock.running === seat && this.lastReading[seat] !== null) b = this.lastReading[seat];
    }
    const lowAt = clock.low_at;
    const low = running && (side.low || (italian ? a === 0 && b <= lowAt : Math.min(a, b) <= lowAt));
    return {
      a, b, running, low, active,
      aLabel: italian ? t("clock.delay") : t("clock.move"),
      bLabel: italian ? t("clock.reserve") : t("clock.game"),
    };
  }

  tick() {
    if (!this.feed.clock || !this.boardState) return;
    const players = this.boardState.players;
    for (const seat of [0, 1]) players[seat].clock = this.clockOf(seat);
    this.view.drawStrips(this.boardState);
    const mine = this.isPlayer ? players[this.you].clock : null;
    if (mine?.low && performance.now() - this.lastAlarm > 1000) {
      this.lastAlarm = performance.now();
      sound.alarm();
    }
  }

  // -- rendering -----------------------------------------------------------------------

  render(instant = false) {
    const g = this.game;
    const info = this.info;
    const o = this.app.options;
    // header
    if (info) {
      const names = `${this.name(0)} – ${this.name(1)}`;
      this.title.textContent = names;
      const meta = [kindText(info)];
      if (info.clock && info.clock !== "none") meta.push(t(`clock.kind_${info.clock}`));
      if (info.rated) meta.push(t("match.rated"));
      if (!this.isPlayer) meta.push(t("match.watching"));
      this.meta.textContent = meta.join(" · ");
      document.title = `${names} · gammon`;
    }
    this.renderWaiting();
    const bottom = this.isPlayer ? this.you : this.spectatorBottom;
    const frame = this.frame;
    const board = frame?.board || g?.board || INITIAL;
    const fb = frame ? frame.fb : this.feedback();
    const moving = this.moving;
    const hl = { sources: [], targets: [], selected: this.selected, cursor: this.cursor };
    if (moving) {
      hl.sources = this.sources();
      const focus = this.drag?.src ?? this.selected ?? this.hover;
      if (focus !== null && focus !== undefined) {
        hl.targets = [...this.reachOf(focus).keys()];
      }
    }
    const dice = this.diceState(g, fb, frame);
    // the last move of either side stays marked until the next roll (not while one's own
    // move is in the making)
    this.dropStaleHint();
    const last = this.hintShown?.preview || (moving ? null : fb.last); // a hint's play previewed, else the last move
    const cube = g ? {
      value: g.cube.value, owner: g.cube.owner, enabled: g.cube.enabled,
      offered: g.phase === "cube_offered" ? { by: g.turn, value: g.cube.value * 2 } : null,
    } : null;
    const players = [0, 1].map((seat) => {
      const s = info?.seats?.[seat];
      return {
        name: s?.name ?? (info?.status === "open" && seat === 1 ? t("match.waiting_seat") : "—"),
        rating: s && s.kind === "user" ? s.rating : null,
        bot: !!s?.bot, // the server's computer or a Bot API account: marked BOT
        score: g ? g.score[seat] : null,
        clock: this.clockOf(seat),
      };
    });
    const length = g?.length ?? info?.length;
    this.boardState = {
      board, bottom, flipped: !!o.flip, numbers: o.numbering !== false, quality: o.graphics,
      dice, last, roll: this.canRoll(), cube, players, turn: g && g.phase !== "match_over" ? (g.phase === "cube_offered" || g.phase === "resign_offered" ? 1 - g.turn : g.turn) : null,
      match: { length, crawford: !!g?.crawford, label: length ? t("board.length", { count: length }) : length === 0 ? t("board.money") : "" },
      highlight: hl, compact: this.svg.clientWidth > 0 && this.svg.clientWidth < 620,
    };
    this.view.render(this.boardState, { instant });
    this.svg.classList.toggle("can-move", moving);
    // buttons
    const show = (name, visible, enabled = true) => {
      const b = this.buttons[name];
      b.hidden = !visible;
      b.disabled = !enabled || (this.busy && ["roll", "double", "undo", "confirm", "resign"].includes(name));
    };
    const player = this.isPlayer && this.isLive();
    const myMove = player && this.myTurn && this.phase === "moving";
    show("roll", player && !myMove, this.canRoll());
    show("double", player && !myMove && !!g?.cube?.enabled, this.canDouble());
    show("undo", myMove, this.canUndo());
    show("confirm", myMove && (this.app.options.confirm_turn || this.canConfirm()), this.canConfirm());
    show("resign", player, this.canResign());
    show("abandon", player, true);
    show("flip", true);
    show("side", !this.isPlayer && !!g);
    show("sound", true);
    show("hint", player && this.hintAllowed(), this.hintRequest() !== null && !this.hintShown?.pending);
    this.buttons.flip.setAttribute("aria-pressed", String(!!o.flip));
    this.buttons.sound.setAttribute("aria-pressed", String(o.sound !== false));
    this.buttons.sound.textContent = o.sound !== false ? t("match.sound_on") : t("match.sound_off");
    this.chatBox.hidden = !this.isPlayer;
    // status line
    this.status.textContent = this.message || this.statusText();
    this.status.classList.toggle("error", !!this.message && this.messageError);
    this.renderMoveList();
  }

  /** The dice to draw: the roll in play (the server's dice left; the opening's one die a
   *  side), else the last roll dimmed until the next one; while frames play, theirs. */
  diceState(g, fb, frame) {
    if (frame?.throw) {
      const { dice, tie } = frame.throw;
      return { split: dice, left: dice.slice(), seat: dice[0] > dice[1] ? 0 : 1, tie };
    }
    const d = fb.dice;
    if (frame) {
      if (!d) return null;
      return d.opening ? { split: d.opening, left: d.left, seat: d.seat } : { values: d.values, left: d.left, seat: d.seat };
    }
    if (g?.dice && g.phase === "moving") {
      const left = (g.dice_left || []).slice();
      const confirmable = this.canConfirm();
      const opening = d && d.opening && d.seat === g.turn && diceValues(g.dice).join() === d.values.join() ? d.opening : null;
      if (opening) return { split: opening, left, seat: g.turn, confirmable };
      return { values: diceValues(g.dice, true), left, seat: g.turn, confirmable };
    }
    if (!d) return null;
    return d.opening ? { split: d.opening, left: [], seat: d.seat, previous: true } : { values: d.values, left: [], seat: d.seat, previous: true };
  }

  renderMoveList() {
    const events = this.feed.events;
    const key = `${events.length}:${events[events.length - 1]?.v}:${this.name(0)}:${this.name(1)}:${this.anew}`;
    if (key === this.moveListKey) return;
    this.moveListKey = key;
    const rows = moveRows(events, (seat) => this.name(seat), this.anew);
    // from a live board the replay opens in a new tab: the match goes on here
    const live = this.isPlayer && this.isLive();
    renderMoveList(this.moveList, rows, {
      href: (v) => `#/replay/${this.id}/${v}${this.query}`, target: live ? "_blank" : null });
    this.moveList.scrollTop = this.moveList.scrollHeight; // the latest in view
  }

  statusText() {
    const g = this.game;
    const info = this.info;
    if (this.app.socket.status !== "open") return t("status.reconnecting");
    if (!info) return t("match.loading");
    if (info.status === "open") return t("status.waiting_opponent");
    if (!g) return "";
    const other = this.isPlayer ? this.name(1 - this.you) : null;
    switch (g.phase) {
      case "opening": return t("status.opening");
      case "before_roll":
        if (this.myTurn) return this.canDouble() ? t("status.roll_or_double") : t("status.roll");
        return t("status.other_rolls", { name: this.name(g.turn) });
      case "moving":
        if (this.myTurn) {
          if (this.canConfirm()) return t("status.confirm");
          return t("status.move", { dice: (g.dice_left || []).slice().sort((a, b) => b - a).join(" ") });
        }
        return t("status.other_moves", { name: this.name(g.turn) });
      case "cube_offered":
        return g.turn === this.you ? t("status.wait_cube", { name: other }) : t("status.cube_offered", { name: this.name(g.turn) });
      case "resign_offered":
        return g.turn === this.you ? t("status.wait_resign", { name: other }) : t("status.resign_offered", { name: this.name(g.turn) });
      case "game_over": return t("status.game_over");
      case "match_over": return t("over.winner", { name: this.name(g.winner) });
      default: return "";
    }
  }

  renderWaiting() {
    const info = this.info;
    this.waiting.replaceChildren();
    if (!info || info.status !== "open") return;
    const mine = info.seats?.[0]?.id === this.app.me?.id;
    const url = `${location.origin}${location.pathname}#/match/${this.id}${this.query}`;
    if (mine) {
      const input = h("input", { type: "text", readonly: true, value: url, "aria-label": t("match.invite_link") });
      this.waiting.append(h("div", { class: "banner stack" },
        h("p", {}, h("strong", {}, t("match.waiting_title")), " ", t("match.waiting_text")),
        h("div", { class: "invite" }, input,
          h("button", { type: "button", onclick: async () => {
            input.select();
            toast((await copyText(url)) ? t("match.copied") : t("match.copy_manually"));
          } }, t("match.copy_link")),
          h("button", { type: "button", class: "danger", onclick: async () => {
            try { await api("DELETE", `/api/games/${this.id}`); this.app.navigate("#/"); } catch (err) { toast(err.message, { error: true }); }
          } }, t("match.cancel_game")))));
    } else {
      this.waiting.append(h("div", { class: "banner row" },
        h("span", {}, t("match.open_by", { name: info.seats?.[0]?.name ?? "?" })),
        h("button", { type: "button", class: "primary", onclick: async () => {
          try { await api("POST", `/api/games/${this.id}/join${this.query}`, {}); } catch (err) { toast(err.message, { error: true }); }
        } }, t("lobby.join"))));
    }
  }
}

function svg_capture(svg, pointerId) {
  try { svg.setPointerCapture(pointerId); } catch { /* not capturable */ }
}

export { formatSeconds };
