// @ts-check
// match.js — the match page (#/match/ID): the live board, the turn's controls, dialogs,
// clocks, the hint, chat and the move list, for players and spectators.
//
// The page is put together like every page that shows a board: a controller with no DOM
// (round/ctrl.js: the state, the actions, what may be done now; it reads the live feed),
// views that draw it (round/view/*), the input that turns the player's hands into its
// actions (round/input.js); the controller asks for a redraw and the page draws every view
// from it. docs/client.md, "The match page".

import { callBack } from "./attention.js";
import { BoardView, NS } from "./board.js";
import { t } from "./i18n.js";
import { api } from "./net.js";
import { RoundCtrl } from "./round/ctrl.js";
import { BoardInput } from "./round/input.js";
import { boardState, drawClocks } from "./round/view/board.js";
import { buildControls, buildOptionsMenu, drawControls, syncOptionsMenu } from "./round/view/controls.js";
import { Dialogs } from "./round/view/dialogs.js";
import { HintView } from "./round/view/hint.js";
import { ChatView, MoveListView } from "./round/view/log.js";
import { drawHead, drawStatus, drawWaiting } from "./round/view/status.js";
import { announce, h, sound, toast } from "./ui.js";

/** @typedef {import("./round/types.js").Redraw} Redraw */

export class MatchPage {
  /** @param {any} app the application (app.js) @param {string} matchId ID, or ID?key=KEY (a private match's invite link) */
  constructor(app, matchId) {
    this.app = app;
    const [id, key] = matchId.split("?key=");
    this.id = id;
    this.key = key || null;
    this.lastAlarm = 0;
    /** @type {[EventTarget, string, EventListener][]} */
    this.handlers = [];
    /** @type {ReturnType<typeof boardState> | null} the board state drawn last */
    this.boardState = null;
    // the parts made on mount
    /** @type {import("./net.js").MatchFeed} */ this.feed;
    /** @type {SVGSVGElement} */ this.svg;
    /** @type {BoardView} */ this.view;
    /** @type {RoundCtrl} */ this.ctrl;
    /** @type {Dialogs} */ this.dialogs;
    /** @type {Record<string, HTMLButtonElement>} */ this.buttons;
    /** @type {HTMLElement} */ this.optionsMenu;
    /** @type {{title: HTMLElement, meta: HTMLElement}} */ this.head;
    /** @type {HTMLElement} */ this.waiting;
    /** @type {HTMLElement} */ this.status;
    /** @type {HintView} */ this.hint;
    /** @type {MoveListView} */ this.moveList;
    /** @type {ChatView} */ this.chat;
    /** @type {BoardInput | undefined} */ this.input;
    /** @type {ReturnType<typeof setInterval> | undefined} */ this.ticker;
  }

  /** @param {HTMLElement} main */
  mount(main) {
    const app = this.app;
    const feed = app.socket.feed(this.id, null, this.key);
    this.feed = feed;
    const svg = /** @type {SVGSVGElement} */ (document.createElementNS(NS, "svg"));
    svg.setAttribute("aria-label", t("board.label"));
    svg.setAttribute("aria-describedby", "kbd-help");
    this.svg = svg;
    this.view = new BoardView(svg, t);
    const ctrl = new RoundCtrl({
      id: this.id, key: this.key, feed, options: () => app.options, api,
      redraw: (how) => this.redraw(how),
      effects: {
        sound: (name) => /** @type {Record<string, () => void>} */ (/** @type {unknown} */ (sound))[name](),
        announce,
        toast: (text, error = false) => toast(text, { error }),
        navigate: (hash) => app.navigate(hash),
        refreshMe: () => app.refreshMe(),
        answered: () => { this.view.pinned = null; },
        callBack,
      },
    });
    this.ctrl = ctrl;
    this.dialogs = new Dialogs(ctrl, app);
    const controls = buildControls(ctrl, {
      toggleOption: (k) => this.toggleOption(k), resign: () => this.dialogs.resign(), abandon: () => this.dialogs.abandon(),
    });
    this.buttons = controls.buttons;
    this.optionsMenu = buildOptionsMenu(app.options, (change) => { app.saveOptions(change); ctrl.optionChanged(); });
    this.head = { title: h("h1", {}, t("match.loading")), meta: h("span", { class: "muted small" }) };
    this.waiting = h("div");
    this.status = h("p", { class: "status-line", role: "status", "aria-live": "polite" });
    this.hint = new HintView();
    this.moveList = new MoveListView();
    this.chat = new ChatView(ctrl);
    main.replaceChildren(h("section", { class: "match", "aria-label": t("match.title") },
      h("div", { class: "match-main" },
        h("div", { class: "match-head" }, this.head.title, this.head.meta),
        this.waiting,
        h("div", { class: "board-wrap" }, svg),
        this.status,
        controls.bar,
        this.hint.el,
        h("p", { class: "kbd-help", id: "kbd-help" }, t("match.keyboard_help"))),
      h("div", { class: "match-side" },
        h("section", { class: "card" }, h("h2", {}, t("match.log")), this.moveList.el),
        this.chat.el,
        this.optionsMenu)));

    // the chat's lines come with a whole state (before the controller reads it) and one by one
    this.listen(feed, "state", (e) => { if (/** @type {CustomEvent} */ (e).detail.full) this.chat.reset(); });
    this.listen(feed, "chat", (e) => this.chat.add(/** @type {CustomEvent} */ (e).detail));
    this.listen(feed, "rematch", (e) => this.dialogs.rematchOffered(/** @type {CustomEvent} */ (e).detail, app.me?.name));
    this.listen(feed, "cancelled", () => { toast(t("match.cancelled")); app.navigate("#/"); });
    this.listen(app.socket, "status", (e) => ctrl.onStatus(/** @type {CustomEvent} */ (e).detail));
    this.listen(app.socket, "message", (e) => {
      // the post-match analysis moved on: ask for it now rather than at the next poll
      const m = /** @type {CustomEvent} */ (e).detail;
      if (m.type === "analysis" && m.match === this.id && ctrl.end.active) ctrl.end.loadAnalysis();
    });
    this.listen(window, "resize", () => this.render());
    this.input = new BoardInput({ ctrl, view: this.view, svg, toggleOption: (k) => this.toggleOption(k) });
    this.ticker = setInterval(() => this.tick(), 250);
    if (feed.game || feed.info) { this.chat.reset(); ctrl.onState({ full: true, events: [] }); }
    else this.render();
  }

  unmount() {
    clearInterval(this.ticker);
    this.ctrl?.stop();
    this.input?.stop();
    for (const [target, type, fn] of this.handlers) target.removeEventListener(type, fn);
    this.dialogs?.close();
    this.app.socket.drop(this.id);
  }

  /** @param {EventTarget} target @param {string} type @param {EventListener} fn */
  listen(target, type, fn) {
    target.addEventListener(type, fn);
    this.handlers.push([target, type, fn]);
  }

  /** Flip an option from the page (a button, a shortcut): saved, the menu follows.
   *  @param {string} key */
  toggleOption(key) {
    this.app.saveOptions({ [key]: !this.app.options[key] });
    syncOptionsMenu(this.optionsMenu, this.app.options);
    this.ctrl.optionChanged();
  }

  /** Draw the page again (the window resized, a test changed what the page holds). */
  render(instant = false) {
    this.ctrl.changed({ instant });
  }

  /** Every view, drawn from the controller. @param {Redraw} how */
  redraw({ instant = false, settled = false } = {}) {
    const ctrl = this.ctrl;
    drawHead(this.head, ctrl);
    drawWaiting(this.waiting, ctrl, this.app.me);
    const width = this.svg.clientWidth;
    this.boardState = boardState(ctrl, { compact: width > 0 && width < 620 });
    this.view.render(this.boardState, { instant });
    this.svg.classList.toggle("can-move", ctrl.moving);
    this.hint.draw(ctrl);
    drawControls(this.buttons, ctrl);
    this.chat.draw(ctrl);
    drawStatus(this.status, ctrl);
    this.moveList.draw(ctrl);
    this.dialogs.over?.fill();
    if (settled) this.dialogs.sync();
  }

  /** The clocks run down between the server's readings; an alarm when one's own runs low. */
  tick() {
    if (!this.feed?.clock || !this.boardState) return;
    const now = performance.now();
    if (drawClocks(this.view, this.boardState, this.ctrl, now) && now - this.lastAlarm > 1000) {
      this.lastAlarm = now;
      /** @type {any} */ (sound).alarm();
    }
  }
}
