// @ts-check
// board.js — the backgammon board drawn in SVG from a plain state object.
//
// Pure rendering: no network, no rules (the counts of a board come from rules.js).
// `BoardView.render(state)` draws exactly what the state says; the only memory it keeps is
// which SVG element is which checker, so that a checker that moves slides to its new place
// (a CSS transition on its transform). This module holds the view, its static board and
// its keyboard layer; its parts are in board/: geometry.js (the measures and slots),
// svg.js, checkers.js (the checkers and their slide), marks.js (targets, the last move),
// dice.js (the cube and dice), strips.js (the players' strips and clocks).
//
// The state (see docs/client.md):
//   board     26 signed counts from player 0's view, as the server sends them:
//             1..24 the points (player 0's checkers positive, player 1's negative),
//             25 player 0's bar, 0 player 1's bar (negative).
//   bottom    the seat drawn at the bottom (the viewer; a spectator may choose).
//   flipped   mirror the board: the bottom side's home board on the left.
//   numbers   draw point numbers (from the bottom side's view).
//   quality   "high" (gradients, shadows, animation) or "low".
//   dice      null, {values: [high, low] (doubles four times), left: [...], seat, confirmable,
//             previous}, or the opening's {split: [die of seat 0, die of seat 1], left, seat
//             (who starts), tie, confirmable, previous}: one die drawn on each side;
//             `previous`: a roll already played (shown dimmed until the next roll)
//   last      null or the last move {seat, moves: [{from, to, hit}], label?} (the mover's
//             numbering): outlined, with arrows, hit checkers ringed; `label` its spoken name
//   compare   null or another play of that turn {seat, moves, label?}, drawn as the last
//             move is, in a colour of its own (the review: the engine's play beside the one
//             made)
//   roll      true when the bottom side may roll now (the dice area becomes a Roll button)
//   cube      null or {value, owner (seat|null), enabled, offered: null|{by, value}}
//   players   [seat 0, seat 1], each {name, rating, score, clock}
//   match     {length, crawford, label}
//   turn      seat on turn (or null)
//   highlight {sources: [...], targets: [...], selected, cursor} in the bottom side's point
//             numbering (25 its bar, 0 borne off).
//
// Every place on the board is a "slot" in the bottom side's numbering: 1..24 the points,
// 25 its bar, 0 its tray (borne off). The opponent's bar and tray are never targets.

import { seatCounts } from "./rules.js";
import { drawCheckers } from "./board/checkers.js";
import { drawCube, drawDice } from "./board/dice.js";
import { GEO, GEO_COMPACT, pointPlace, colX, pointX, mirror, slotAt } from "./board/geometry.js";
import { drawMarks, drawLast } from "./board/marks.js";
import { drawStrips } from "./board/strips.js";
import { el, text } from "./board/svg.js";

export { NS } from "./board/svg.js";
export { slotNeighbour } from "./board/geometry.js";

/**
 * The board view. `t(key, params)` gives the visible and spoken strings (i18n).
 */
export class BoardView {
  /** @param {SVGSVGElement} svg
   *  @param {(key: string, params?: Record<string, unknown>) => string} [t] */
  constructor(svg, t = (k) => k) {
    this.svg = svg;
    this.t = t;
    this.checkers = new Map(); // id -> element
    this.stacks = [new Map(), new Map()]; // seat -> slot key -> [ids]
    this.nextId = 1;
    this.layoutKey = null;
    this.pinned = null; // a checker the board must not move (held by the pointer)
    /** @type {string | null} the roll drawn last: a new one tumbles in once (board/dice.js) */
    this.lastRoll = null;
    this.setGeometry(GEO);
    svg.setAttribute("class", "board");
    svg.setAttribute("role", "group");
    this.defs = el("defs", {}, svg);
    this.buildDefs();
    this.layers = {};
    for (const name of ["static", "numbers", "marks", "cube", "dice", "checkers", "last", "labels",
      "strips", "hits"]) {
      this.layers[name] = el("g", { class: `layer-${name}` }, svg);
    }
  }

  buildDefs() {
    const d = this.defs;
    const grad = (id, stops, attrs = {}) => {
      const gr = el("radialGradient", { id, cx: "38%", cy: "32%", r: "70%", ...attrs }, d);
      for (const [offset, color] of stops) el("stop", { offset, "stop-color": color }, gr);
    };
    grad("chk0", [["0%", "#ffffff"], ["55%", "#f1eadb"], ["100%", "#c9bfa8"]]);
    grad("chk1", [["0%", "#6a5a52"], ["50%", "#2f2622"], ["100%", "#160f0c"]]);
    for (const kind of ["last", "compare"]) {
      const arrow = el("marker", { id: `${kind}-arrow-head`, viewBox: "0 0 10 10", refX: "7", refY: "5",
        markerWidth: "5", markerHeight: "5", orient: "auto-start-reverse" }, d);
      el("path", { d: "M0,0 L10,5 L0,10 z", class: `${kind}-arrow-head` }, arrow);
    }
    const lin = el("linearGradient", { id: "wood", x1: "0", y1: "0", x2: "1", y2: "1" }, d);
    el("stop", { offset: "0%", "stop-color": "#7a4a24" }, lin);
    el("stop", { offset: "50%", "stop-color": "#5e3719" }, lin);
    el("stop", { offset: "100%", "stop-color": "#6e4220" }, lin);
    const filter = el("filter", { id: "shadow", x: "-30%", y: "-30%", width: "160%", height: "160%" }, d);
    el("feDropShadow", { dx: "1.5", dy: "2.5", stdDeviation: "2", "flood-opacity": "0.45" }, filter);
  }

  /** Screen coordinates to SVG user coordinates. */
  toSvg(clientX, clientY) {
    const pt = this.svg.createSVGPoint();
    pt.x = clientX;
    pt.y = clientY;
    const m = this.svg.getScreenCTM();
    if (!m) return { x: 0, y: 0 };
    const p = pt.matrixTransform(m.inverse());
    return { x: p.x, y: p.y };
  }

  /** Client (screen) coordinates of a slot's middle, for pointer gestures in tests. */
  clientPoint(slot) {
    const g = this.g;
    let x;
    let y;
    if (slot === 0) { x = g.trayX; y = g.innerBottom - g.PL / 2; }
    else if (slot === 25) { x = g.barX; y = g.midY + g.PL / 2; }
    else { x = pointX(slot, g); y = pointPlace(slot).top ? g.innerTop + g.PL / 2 : g.innerBottom - g.PL / 2; }
    const pt = this.svg.createSVGPoint();
    pt.x = mirror(x, this.state?.flipped, g);
    pt.y = y;
    const p = pt.matrixTransform(this.svg.getScreenCTM() ?? undefined);
    return { x: p.x, y: p.y };
  }

  slotAt(clientX, clientY) {
    const p = this.toSvg(clientX, clientY);
    return slotAt(p.x, p.y, this.state?.flipped, this.g);
  }

  /** The element of the top checker of `seat` on a slot (bottom side's numbering). */
  topChecker(seat, slot) {
    const key = this.keyOf(seat, slot);
    const ids = this.stacks[seat].get(key) || [];
    return ids.length ? this.checkers.get(ids[ids.length - 1]) : null;
  }

  keyOf(seat, slot) {
    if (slot === 25) return "bar";
    if (slot === 0) return "off";
    const bottom = this.state?.bottom ?? 0;
    return `p${bottom === 0 ? slot : 25 - slot}`; // stored in player 0's numbering
  }

  render(state, { instant = false } = {}) {
    const previous = this.state;
    this.state = state;
    const flipped = !!state.flipped;
    const layoutKey = `${flipped}|${state.numbers}|${state.bottom}|${state.quality}|${!!state.compact}`;
    this.svg.classList.toggle("low", state.quality === "low");
    this.svg.classList.toggle("flipped", flipped);
    this.svg.classList.toggle("compact", !!state.compact);
    if (layoutKey !== this.layoutKey) {
      this.layoutKey = layoutKey;
      this.setGeometry(state.compact ? GEO_COMPACT : GEO);
      this.drawStatic(state);
      instant = instant || !!previous;
    }
    this.svg.classList.toggle("instant", instant);
    drawCheckers(this, state);
    drawMarks(this, state);
    drawLast(this, state);
    drawCube(this, state);
    drawDice(this, state);
    drawStrips(this, state);
    this.drawHits(state);
    if (instant) {
      // let the browser apply positions without the transition, then restore it
      requestAnimationFrame(() => requestAnimationFrame(() => this.svg.classList.remove("instant")));
    }
  }

  /** The measures to draw with: the viewBox, the checkers' size, and the board's aspect
   *  ratio as the CSS variable --board-aspect (the page's layout sizes the board by it). */
  setGeometry(g) {
    if (this.g === g) return;
    this.g = g;
    this.svg.setAttribute("viewBox", `0 0 ${g.W} ${g.H}`);
    this.svg.style.setProperty("--board-aspect", String(g.W / g.H));
    for (const node of this.checkers.values()) {
      node.querySelector(".body")?.setAttribute("r", g.R - 1);
      node.querySelector(".ring")?.setAttribute("r", g.R - 9);
    }
  }

  X(x) {
    return mirror(x, this.state.flipped, this.g);
  }

  drawStatic(state) {
    const g = this.g;
    const layer = this.layers.static;
    layer.replaceChildren();
    const hi = state.quality !== "low";
    // frame and wells
    el("rect", { x: 0, y: g.boardTop, width: g.W, height: g.boardBottom - g.boardTop, rx: 14,
      class: "wood", fill: hi ? "url(#wood)" : "#5e3719" }, layer);
    const felt = (x0, x1) => el("rect", {
      x: Math.min(this.X(x0), this.X(x1)), y: g.innerTop, width: Math.abs(x1 - x0),
      height: g.innerBottom - g.innerTop, class: "felt" }, layer);
    felt(g.innerLeft, g.innerLeft + 6 * g.PW);
    felt(g.barX + g.BAR / 2, g.innerRight);
    el("rect", { x: Math.min(this.X(g.barX - g.BAR / 2), this.X(g.barX + g.BAR / 2)),
      y: g.innerTop - g.FY, width: g.BAR, height: g.innerBottom - g.innerTop + 2 * g.FY,
      class: "bar" }, layer);
    // trays: the tray column holds each side's borne-off checkers
    const trayX0 = g.innerRight + g.FRAME;
    for (const top of [true, false]) {
      el("rect", { x: Math.min(this.X(trayX0 + 8), this.X(g.W - 8)), y: top ? g.innerTop : g.midY + g.MID / 2,
        width: g.TRAY - 16, height: g.PL, rx: 6, class: "tray" }, layer);
    }
    // points
    for (let q = 1; q <= 24; q++) {
      const { col, top } = pointPlace(q);
      const cx = this.X(colX(col, g));
      const half = g.PW / 2 - 1;
      const base = top ? g.innerTop : g.innerBottom;
      const tip = top ? g.innerTop + g.PL - 18 : g.innerBottom - g.PL + 18;
      el("polygon", {
        points: `${cx - half},${base} ${cx + half},${base} ${cx},${tip}`,
        class: `point ${(col + (top ? 0 : 1)) % 2 ? "light" : "dark"}`,
      }, layer);
    }
    // numbers
    const numbers = this.layers.numbers;
    numbers.replaceChildren();
    if (state.numbers) {
      for (let q = 1; q <= 24; q++) {
        const { top } = pointPlace(q);
        text(numbers, this.X(pointX(q, g)), top ? g.innerTop - (state.compact ? 5 : 8) : g.innerBottom + (state.compact ? 21 : 19), String(q),
          { class: "point-number", "text-anchor": "middle" });
      }
    }
  }

  drawStrips(state) { drawStrips(this, state); }

  drawHits(state) {
    // Invisible, focusable areas: one per slot of the bottom side, for the keyboard and
    // screen readers (the pointer uses geometry, so these never block a drag).
    const g = this.g;
    const layer = this.layers.hits;
    const h = state.highlight || {};
    if (!this.hitNodes) {
      this.hitNodes = new Map();
      for (let q = 0; q <= 25; q++) {
        const node = el("rect", { class: "hit", "data-slot": q, tabindex: -1, role: "button" }, layer);
        this.hitNodes.set(q, node);
      }
    }
    const counts = seatCounts(state.board);
    const bottom = state.bottom ?? 0;
    const sources = new Set(h.sources || []);
    const targets = new Set(h.targets || []);
    const cursor = h.cursor ?? null;
    for (const [q, node] of this.hitNodes) {
      let x;
      let y;
      let w = g.PW;
      let hh = g.PL;
      if (q === 0) { x = g.innerRight + g.FRAME; y = g.midY + g.MID / 2; w = g.TRAY; }
      else if (q === 25) { x = g.barX - g.BAR / 2; y = g.midY; w = g.BAR; hh = g.PL + g.MID / 2; }
      else {
        const { top } = pointPlace(q);
        x = pointX(q, g) - g.PW / 2;
        y = top ? g.innerTop : g.midY + g.MID / 2;
      }
      const mx = this.state.flipped ? g.W - x - w : x;
      node.setAttribute("x", mx);
      node.setAttribute("y", y);
      node.setAttribute("width", w);
      node.setAttribute("height", hh);
      node.setAttribute("tabindex", cursor === q ? "0" : "-1");
      node.classList.toggle("cursor", cursor === q);
      // spoken description
      let label;
      if (q === 0) label = this.t("board.aria_tray", { count: counts.off[bottom] });
      else if (q === 25) label = this.t("board.aria_bar", { count: counts.bar[bottom] });
      else {
        const a = bottom === 0 ? q : 25 - q;
        const mine = counts.points[bottom][a];
        const theirs = counts.points[1 - bottom][a];
        label = mine ? this.t("board.aria_point_mine", { point: q, count: mine })
          : theirs ? this.t("board.aria_point_theirs", { point: q, count: theirs })
            : this.t("board.aria_point_empty", { point: q });
      }
      if (sources.has(q)) label += `. ${this.t("board.aria_movable")}`;
      if (targets.has(q)) label += `. ${this.t("board.aria_target")}`;
      if (h.selected === q) label += `. ${this.t("board.aria_selected")}`;
      node.setAttribute("aria-label", label);
    }
    // If no cursor is set, the first point is the tab stop.
    if (cursor === null) this.hitNodes.get(state.flipped ? 12 : 1)?.setAttribute("tabindex", "0");
  }

  focusSlot(q) {
    this.hitNodes?.get(q)?.focus();
  }
}
