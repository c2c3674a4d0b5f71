// @ts-check
// round/input.js — the player's hands on the live board, turned into controller actions: a
// drag (the checker follows the pointer, dropped on a point), a click (the longest move), a
// tap that picks then a tap on a lit point (a touch screen), the keyboard (arrows walk the
// points, Enter picks and moves, Escape drops the pick) and the page's shortcut keys.

import { slotNeighbour } from "../board.js";

/** @typedef {import("./ctrl.js").RoundCtrl} RoundCtrl */
/** @typedef {import("../board.js").BoardView} BoardView */
/** @typedef {{src: number, node: SVGElement, x0: number, y0: number, moved: boolean, origin: string}} Drag */

export class BoardInput {
  /**
   * @param {{ctrl: RoundCtrl, view: BoardView, svg: SVGSVGElement,
   *   toggleOption: (key: string) => void}} how `toggleOption`: the page's (the F key flips)
   */
  constructor({ ctrl, view, svg, toggleOption }) {
    this.ctrl = ctrl;
    this.view = view;
    this.svg = svg;
    this.toggleOption = toggleOption;
    /** @type {Drag | null} */
    this.drag = null;
    /** @type {[EventTarget, string, EventListener][]} */
    this.handlers = [];
    /** @param {EventTarget} target @param {string} type @param {(e: any) => void} fn */
    const on = (target, type, fn) => { target.addEventListener(type, fn); this.handlers.push([target, type, fn]); };
    on(svg, "pointerdown", (e) => this.onPointerDown(e));
    on(svg, "pointermove", (e) => this.onPointerMove(e));
    on(svg, "pointerup", (e) => this.onPointerUp(e));
    on(svg, "pointercancel", () => this.cancelDrag());
    on(svg, "pointerleave", () => { if (!this.drag && ctrl.hover !== null) { ctrl.hover = null; ctrl.changed(); } });
    on(svg, "click", (e) => {
      const action = e.target.closest?.("[data-action]")?.dataset.action;
      if (action === "roll") ctrl.roll();
      if (action === "confirm") ctrl.confirm();
    });
    on(svg, "keydown", (e) => this.onBoardKey(e));
    // a tap anywhere off the board drops a checker picked by a tap
    on(document, "pointerdown", (e) => {
      if (ctrl.selected !== null && this.tapsPick(e) && !svg.contains(e.target)) {
        ctrl.dropPick();
        ctrl.changed();
      }
    });
    on(svg, "focusin", (e) => {
      const slot = e.target.dataset?.slot;
      if (slot !== undefined && ctrl.cursor !== Number(slot)) { ctrl.cursor = Number(slot); ctrl.changed(); }
    });
    on(document, "keydown", (e) => this.onKey(e));
  }

  stop() {
    for (const [target, type, fn] of this.handlers) target.removeEventListener(type, fn);
    this.handlers = [];
  }

  /** Taps pick (a touch screen, unless the player chose "a tap plays the longest move"):
   *  a tap on a checker picks it and lights where it can go, a tap on a lit point (the whole
   *  point, or the tray) moves it there, a tap on it again or anywhere else drops it.
   *  @param {PointerEvent} e */
  tapsPick(e) {
    return e.pointerType !== "mouse" && !this.ctrl.options().tap_longest;
  }

  /** @param {PointerEvent} e */
  onPointerDown(e) {
    const ctrl = this.ctrl;
    const target = /** @type {Element} */ (e.target);
    if (e.button !== 0 || target.closest?.("[data-action]")) return;
    const slot = this.view.slotAt(e.clientX, e.clientY);
    if (this.tapsPick(e) && ctrl.selected !== null && slot !== ctrl.selected) {
      // the second tap: a lit point takes the picked checker; another checker that can move
      // is picked instead (on the pointerup below, or dragged); anywhere else drops the pick
      const src = ctrl.selected;
      const lit = slot !== null && ctrl.reachOf(src).has(slot);
      const other = !lit && slot !== null && slot !== 0 && ctrl.moving && !!ctrl.legal[String(slot)];
      if (!other) {
        e.preventDefault();
        ctrl.dropPick();
        if (lit && !ctrl.busy) ctrl.tryMove(src, /** @type {number} */ (slot));
        ctrl.changed();
        return;
      }
    }
    if (slot === null || slot === 0) return;
    const node = ctrl.isPlayer ? this.view.topChecker(/** @type {number} */ (ctrl.you), slot) : null;
    if (!ctrl.moving || !ctrl.legal[String(slot)]) {
      if (node && ctrl.isPlayer) {
        // a checker of mine that cannot move now: say why
        ctrl.setMessage(ctrl.whyNot(slot, null), true);
        ctrl.changed();
      }
      return;
    }
    if (!node || ctrl.busy) return;
    e.preventDefault();
    try { this.svg.setPointerCapture(e.pointerId); } catch { /* not capturable */ }
    this.drag = { src: slot, node, x0: e.clientX, y0: e.clientY, moved: false, origin: node.style.transform };
    ctrl.dragSrc = slot;
    ctrl.hover = slot;
    ctrl.changed();
  }

  /** @param {PointerEvent} e */
  onPointerMove(e) {
    const ctrl = this.ctrl;
    const d = this.drag;
    if (!d) {
      if (e.pointerType === "mouse" && ctrl.moving) {
        const slot = this.view.slotAt(e.clientX, e.clientY);
        const hover = slot !== null && ctrl.legal[String(slot)] ? slot : null;
        if (hover !== ctrl.hover) { ctrl.hover = hover; ctrl.changed(); }
      }
      return;
    }
    if (!d.moved && Math.hypot(e.clientX - d.x0, e.clientY - d.y0) < 6) return;
    d.moved = true;
    const p = this.view.toSvg(e.clientX, e.clientY);
    if (!d.node.classList.contains("dragging")) {
      d.node.classList.add("dragging");
      this.view.pinned = d.node; // the board leaves it where the pointer is
      d.node.parentNode?.appendChild(d.node); // drawn above the other checkers
    }
    d.node.style.transform = `translate(${p.x}px, ${p.y}px)`;
  }

  /** @param {PointerEvent} e */
  onPointerUp(e) {
    const ctrl = this.ctrl;
    const d = this.drag;
    if (!d) return;
    this.drag = null;
    ctrl.dragSrc = null;
    d.node.classList.remove("dragging");
    if (!d.moved) {
      d.node.style.transform = d.origin;
      if (this.tapsPick(e)) ctrl.pick(d.src);
      else ctrl.clickMove(d.src);
      ctrl.changed();
      return;
    }
    const dest = this.view.slotAt(e.clientX, e.clientY);
    if (dest === null || dest === d.src) {
      this.view.pinned = null;
      d.node.style.transform = d.origin; // back where it was
      ctrl.hover = null;
      ctrl.changed();
      return;
    }
    // accepted, it stays where it was dropped until the server answers: then it settles on
    // its point (accepted) or slides back (refused)
    if (!ctrl.tryMove(d.src, dest)) {
      this.view.pinned = null;
      d.node.style.transform = d.origin; // snap back (with the transition)
    }
    ctrl.hover = null;
    ctrl.changed();
  }

  cancelDrag() {
    const d = this.drag;
    if (!d) return;
    this.view.pinned = null;
    d.node.classList.remove("dragging");
    d.node.style.transform = d.origin;
    this.drag = null;
    this.ctrl.dragSrc = null;
    this.ctrl.hover = null;
    this.ctrl.changed();
  }

  /** The keyboard on a point of the board. @param {KeyboardEvent} e */
  onBoardKey(e) {
    const ctrl = this.ctrl;
    const slot = /** @type {HTMLElement} */ (e.target).dataset?.slot;
    if (slot === undefined) return;
    const q = Number(slot);
    if (e.key.startsWith("Arrow")) {
      e.preventDefault();
      ctrl.cursor = slotNeighbour(q, e.key, !!ctrl.options().flip);
      ctrl.changed();
      this.view.focusSlot(ctrl.cursor);
      return;
    }
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      e.stopPropagation();
      ctrl.cursor = q;
      if (this.keySelect(q)) this.view.focusSlot(q);
      return;
    }
    if (e.key === "Escape" && ctrl.selected !== null) {
      e.stopPropagation();
      ctrl.dropPick();
      ctrl.changed();
    }
  }

  /** Enter (or Space) on point `q`: pick a checker there, or move the picked one there (a
   *  second Enter on it plays its longest move). Whether the point keeps the focus.
   *  @param {number} q @returns {boolean} */
  keySelect(q) {
    const ctrl = this.ctrl;
    if (ctrl.selected === null) {
      if (ctrl.moving && ctrl.legal[String(q)]) ctrl.pick(q);
      else {
        ctrl.setMessage(ctrl.whyNot(q, null), true);
        ctrl.fx.announce(ctrl.message);
      }
      ctrl.changed();
      return true;
    }
    const src = ctrl.selected;
    if (q === src) {
      ctrl.selected = null;
      ctrl.clickMove(src);
      ctrl.changed();
      return false;
    }
    if (ctrl.reachOf(src).has(q)) {
      ctrl.selected = null;
      ctrl.tryMove(src, q);
      ctrl.changed();
      return true;
    }
    if (ctrl.moving && ctrl.legal[String(q)]) {
      ctrl.selected = null;
      return this.keySelect(q);
    }
    ctrl.tryMove(src, q);
    return true;
  }

  /** The page's shortcuts (not while typing, not with a dialog open). @param {KeyboardEvent} e */
  onKey(e) {
    const ctrl = this.ctrl;
    if (e.defaultPrevented || (e.ctrlKey && e.key !== "z") || e.metaKey || e.altKey) return;
    const tag = (/** @type {HTMLElement} */ (e.target).tagName || "").toLowerCase();
    if (["input", "textarea", "select"].includes(tag) || document.querySelector("dialog[open]")) return;
    const key = e.key.toLowerCase();
    if (key === "r") ctrl.roll();
    else if (key === "d" && !e.ctrlKey) ctrl.double();
    else if (key === "u" || (e.ctrlKey && key === "z")) ctrl.undo();
    else if (key === "c") ctrl.confirm();
    else if (key === "f") this.toggleOption("flip");
    else if (key === "b") { ctrl.cursor = ctrl.cursor ?? 1; ctrl.changed(); this.view.focusSlot(ctrl.cursor); }
    else return;
    e.preventDefault();
  }
}
