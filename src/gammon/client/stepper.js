// @ts-check
// stepper.js — the board that steps through a match's frames (replay.js's `matchFrames`),
// with its caption and step controls: first, previous, a slider, next, last, the counter.
// The replay and review pages each hold one and lay its `elements` out; the page is told
// of each frame shown (`onShow`) to draw its own parts (the review's decision panel).

import { BoardView, NS } from "./board.js";
import { t } from "./i18n.js";
import { markCurrent } from "./movelist.js";
import { frameState } from "./replay.js";
import { h, icon, ICONS } from "./ui.js";

/** @typedef {{board: number[], dice: any, cube: any, score: number[], turn: number | null,
 *    game: number, crawford: boolean, event: any, caption: string}} Frame */

export class FrameStepper {
  /**
   * @param {{options: () => Record<string, any>, moveList?: HTMLElement | null,
   *   onShow?: (frame: Frame, index: number) => void}} how  `options`: the player's
   *   (flip, numbering, graphics), read at each frame shown; `moveList`: the list whose
   *   current move follows the frame.
   */
  constructor({ options, moveList = null, onShow }) {
    this.options = options;
    this.moveList = moveList;
    this.onShow = onShow;
    /** @type {Frame[]} */
    this.frames = [];
    this.index = 0;
    this.bottom = 0; // the seat drawn at the bottom
    /** @type {any} the match info (`GET /api/games/{id}`) */
    this.info = null;
    this.svg = /** @type {SVGSVGElement} */ (document.createElementNS(NS, "svg"));
    this.svg.setAttribute("aria-label", t("board.label"));
    this.view = new BoardView(this.svg, t);
    this.caption = h("p", { class: "caption", "aria-live": "polite" });
    this.slider = /** @type {HTMLInputElement} */ (h("input", { type: "range", min: 0, max: 0, value: 0, "aria-label": t("replay.position") }));
    this.slider.addEventListener("input", () => this.show(Number(this.slider.value)));
    this.counter = h("span", { class: "muted small" });
    /** @param {string} path @param {string} title @param {() => void} fn @param {string} act */
    const btn = (path, title, fn, act) => h("button", { type: "button", title, "aria-label": title, "data-act": act, onclick: fn }, icon(path));
    /** The board, its caption and the row of step buttons, to lay out. */
    this.elements = [
      h("div", { class: "board-wrap" }, this.svg),
      this.caption,
      h("div", { class: "replay-controls" },
        btn(ICONS.first, t("replay.first"), () => this.show(0), "first"),
        btn(ICONS.prev, t("replay.prev"), () => this.show(this.index - 1), "prev"),
        this.slider,
        btn(ICONS.next, t("replay.next"), () => this.show(this.index + 1), "next"),
        btn(ICONS.last, t("replay.last"), () => this.show(this.frames.length - 1), "last"),
        this.counter),
    ];
  }

  /** New frames (the match's events grew, or came): the slider's range follows; nothing is
   *  drawn until `show`. @param {Frame[]} frames @param {any} info */
  setFrames(frames, info) {
    this.frames = frames;
    this.info = info;
    this.slider.max = String(Math.max(0, frames.length - 1));
  }

  /** Show frame `i` (kept within the frames): the board, its caption, the slider, the
   *  counter and the current move of the list. Returns the frame, or null when there is none.
   *  @param {number} i */
  show(i) {
    if (!this.frames.length) return null;
    this.index = Math.max(0, Math.min(this.frames.length - 1, i));
    const f = this.frames[this.index];
    const width = this.svg.clientWidth;
    this.view.render(frameState(f, this.info, { bottom: this.bottom, options: this.options(), compact: width > 0 && width < 620 }));
    this.caption.textContent = f.caption;
    this.slider.value = String(this.index);
    this.counter.textContent = `${this.index + 1} / ${this.frames.length}`;
    if (this.moveList) markCurrent(this.moveList, f.event.v ?? 0);
    this.onShow?.(f, this.index);
    return f;
  }

  /** The arrow keys, Home and End step through the frames; the listener to add to and
   *  remove from `document`. `more`: the page's own keys by name, each a function that
   *  returns whether it acted. @param {Record<string, () => boolean>} more */
  keys(more = {}) {
    /** @param {KeyboardEvent} e */
    return (e) => {
      const target = /** @type {HTMLElement} */ (e.target);
      if (["input", "select", "textarea"].includes((target.tagName || "").toLowerCase())) return;
      if (more[e.key]?.()) e.preventDefault();
      else if (e.key === "ArrowRight") this.show(this.index + 1);
      else if (e.key === "ArrowLeft") this.show(this.index - 1);
      else if (e.key === "Home") this.show(0);
      else if (e.key === "End") this.show(this.frames.length - 1);
      else return;
      e.preventDefault();
    };
  }
}
