// @ts-check
// board.js — the backgammon board drawn in SVG from a plain state object.
//
// Pure rendering: no network, no rules (the counts of a board come from rules.js). `BoardView.render(state)` draws exactly what the
// state says; the only memory it keeps is which SVG element is which checker, so that a
// checker that moves slides to its new place (a CSS transition on its transform).
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

import { pipCounts, seatCounts } from "./rules.js";

export const NS = "http://www.w3.org/2000/svg";

/** The board's measures (SVG units). Desktop: a cube column at the left, wide frames and
 *  tray. Compact (phones): no cube column (the cube and the match length sit in the middle
 *  of the tray column, which a taller middle band leaves free), thin side frames, and
 *  checkers that fill their points, so that a phone's width goes to the points: at 375 px
 *  a checker is 25 px wide (18.6 px with the desktop measures). FRAME is the side frames'
 *  width, FY the top and bottom frames' height (the point numbers are written there). */
function geometry(compact) {
  const m = compact
    ? { SIDE: 0, FRAME: 10, FY: 26, PW: 62, BAR: 62, TRAY: 62, STRIP: 74, R: 31, PL: 290, MID: 136 }
    : { SIDE: 84, FRAME: 26, FY: 26, PW: 62, BAR: 70, TRAY: 84, STRIP: 74, R: 29, PL: 290, MID: 80 };
  const W = m.SIDE + m.FRAME + 12 * m.PW + m.BAR + m.FRAME + m.TRAY;
  const innerLeft = m.SIDE + m.FRAME;
  const innerRight = innerLeft + 12 * m.PW + m.BAR;
  const innerTop = m.STRIP + m.FY;
  const innerBottom = innerTop + 2 * m.PL + m.MID;
  const boardTop = m.STRIP;
  const boardBottom = innerBottom + m.FY;
  const H = boardBottom + m.STRIP;
  const midY = (innerTop + innerBottom) / 2;
  const barX = innerLeft + 6 * m.PW + m.BAR / 2;
  const trayX = innerRight + m.FRAME + m.TRAY / 2;
  const cubeX = compact ? trayX : m.SIDE / 2;
  const leftQuarterX = innerLeft + 3 * m.PW;
  const rightQuarterX = innerLeft + 6 * m.PW + m.BAR + 3 * m.PW;
  return Object.freeze({
    ...m, compact, W, innerLeft, innerRight, innerTop, innerBottom, boardTop, boardBottom, H,
    midY, barX, trayX, cubeX, leftQuarterX, rightQuarterX,
  });
}

export const GEO = geometry(false);
export const GEO_COMPACT = geometry(true);

/** Column (0..11, left to right) and row of a point in the bottom side's numbering. */
export function pointPlace(q) {
  return q <= 12 ? { col: 12 - q, top: false } : { col: q - 13, top: true };
}

function colX(col, g = GEO) {
  const { innerLeft, PW, BAR } = g;
  return col < 6 ? innerLeft + col * PW + PW / 2 : innerLeft + 6 * PW + BAR + (col - 6) * PW + PW / 2;
}

/** Unmirrored x of a point (1..24) in the bottom side's numbering. */
export function pointX(q, g = GEO) {
  return colX(pointPlace(q).col, g);
}

function mirror(x, flipped, g = GEO) {
  return flipped ? g.W - x : x;
}

/** Which slot (bottom side's numbering) holds SVG coordinates (x, y), or null. */
export function slotAt(x, y, flipped, g = GEO) {
  const ux = mirror(x, flipped, g);
  if (y < g.innerTop - 4 || y > g.innerBottom + 4) return null;
  if (ux >= g.innerRight + g.FRAME / 2) return 0; // the tray column: bear off
  if (ux >= g.barX - g.BAR / 2 && ux <= g.barX + g.BAR / 2) return 25;
  if (ux < g.innerLeft || ux > g.innerRight) return null;
  let col;
  if (ux < g.barX) col = Math.floor((ux - g.innerLeft) / g.PW);
  else col = 6 + Math.floor((ux - (g.barX + g.BAR / 2)) / g.PW);
  col = Math.max(0, Math.min(11, col));
  const top = y < g.midY;
  return top ? col + 13 : 12 - col;
}

/** A seat's point `a` (in player 0's numbering) in the bottom side's numbering. */
function toBottom(a, bottom) {
  return bottom === 0 ? a : 25 - a;
}

function spacing(n, length, g) {
  const d = 2 * g.R;
  return n <= 1 ? d : Math.min(d, (length - d) / (n - 1));
}

/** Centre of checker `i` of `n` on a slot; `mine` says whose bar or tray. */
export function checkerCentre(slot, i, n, mine, g = GEO) {
  if (slot === "bar") {
    const sp = spacing(n, g.PL - 10, g);
    return mine ? { x: g.barX, y: g.midY + g.R + 8 + i * sp }
      : { x: g.barX, y: g.midY - g.R - 8 - i * sp };
  }
  const q = slot;
  const { col, top } = pointPlace(q);
  const sp = spacing(n, g.PL, g);
  const x = colX(col, g);
  return top ? { x, y: g.innerTop + g.R + i * sp } : { x, y: g.innerBottom - g.R - i * sp };
}

/** An SVG element with `attrs` (null and undefined ones left out), added to `parent`.
 *  @param {string} name
 *  @param {Record<string, unknown>} [attrs]
 *  @param {Element | null} [parent] */
function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== undefined && value !== null) node.setAttribute(key, String(value));
  }
  if (parent) parent.appendChild(node);
  return node;
}

/** @returns {SVGTextElement} */
function text(parent, x, y, content, attrs = {}) {
  const node = /** @type {SVGTextElement} */ (el("text", { x, y, ...attrs }, parent));
  node.textContent = content;
  return node;
}

const PIPS = {
  1: [[0, 0]],
  2: [[-1, -1], [1, 1]],
  3: [[-1, -1], [0, 0], [1, 1]],
  4: [[-1, -1], [1, -1], [-1, 1], [1, 1]],
  5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]],
  6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]],
};

export function formatSeconds(s) {
  if (s === null || s === undefined || !isFinite(s)) return "–";
  const total = Math.max(0, Math.ceil(s));
  const m = Math.floor(total / 60);
  const sec = total % 60;
  return `${m}:${String(sec).padStart(2, "0")}`;
}

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
    this.drawCheckers(state);
    this.drawMarks(state);
    this.drawLast(state);
    this.drawCube(state);
    this.drawDice(state);
    this.drawStrips(state);
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

  reconcile(state) {
    // Target stacks per seat, keyed in player 0's numbering; checkers keep their identity
    // where they stay, and the ones that left a slot fill the slots that gained.
    const counts = seatCounts(state.board);
    for (const seat of [0, 1]) {
      const target = new Map();
      for (let a = 1; a <= 24; a++) if (counts.points[seat][a]) target.set(`p${a}`, counts.points[seat][a]);
      if (counts.bar[seat]) target.set("bar", counts.bar[seat]);
      if (counts.off[seat]) target.set("off", counts.off[seat]);
      const stacks = this.stacks[seat];
      const pool = [];
      for (const [key, ids] of stacks) {
        const want = target.get(key) || 0;
        while (ids.length > want) pool.push(ids.pop());
        if (!ids.length) stacks.delete(key);
      }
      // fill: the moved checkers, then new ones
      for (const [key, want] of target) {
        const ids = stacks.get(key) || [];
        while (ids.length < want) {
          let id = pool.pop();
          if (id === undefined) {
            id = this.nextId++;
            const node = el("g", { class: `checker seat${seat}`, "data-seat": seat });
            el("circle", { r: this.g.R - 1, class: "body" }, node);
            el("circle", { r: this.g.R - 9, class: "ring" }, node);
            this.layers.checkers.appendChild(node);
            this.checkers.set(id, node);
          }
          ids.push(id);
        }
        stacks.set(key, ids);
      }
      for (const id of pool) {
        this.checkers.get(id)?.remove();
        this.checkers.delete(id);
      }
    }
  }

  drawCheckers(state) {
    const g = this.g;
    this.reconcile(state);
    const labels = this.layers.labels;
    labels.replaceChildren();
    const bottom = state.bottom ?? 0;
    for (const seat of [0, 1]) {
      const mine = seat === bottom;
      for (const [key, ids] of this.stacks[seat]) {
        const n = ids.length;
        ids.forEach((id, i) => {
          const node = this.checkers.get(id);
          let x;
          let y;
          node.classList.toggle("borne", key === "off");
          if (key === "off") {
            // a borne-off checker is a slab in its side's tray
            x = g.trayX;
            y = mine ? g.innerBottom - 10 - i * 18 : g.innerTop + 10 + i * 18;
          } else if (key === "bar") {
            ({ x, y } = checkerCentre("bar", i, n, mine, g));
          } else {
            ({ x, y } = checkerCentre(toBottom(Number(key.slice(1)), bottom), i, n, mine, g));
          }
          x = this.X(x);
          if (node !== this.pinned) node.style.transform = `translate(${x}px, ${y}px)`;
          node.dataset.slot = key;
          node.dataset.index = String(i);
          node.style.zIndex = String(i);
          if (i === n - 1 && n > 5 && key !== "off") {
            text(labels, x, y + 7, String(n), { class: `stack-count seat${seat}`, "text-anchor": "middle" });
          }
        });
        // keep the stack order in the DOM (later checkers drawn on top)
        for (const id of ids) this.layers.checkers.appendChild(this.checkers.get(id));
      }
    }
    // borne-off counts
    const counts = seatCounts(state.board);
    for (const seat of [0, 1]) {
      const mine = seat === bottom;
      if (counts.off[seat]) {
        text(labels, this.X(g.trayX), mine ? g.innerBottom - 18 - counts.off[seat] * 18 : g.innerTop + 30 + counts.off[seat] * 18,
          String(counts.off[seat]), { class: "off-count", "text-anchor": "middle" });
      }
    }
  }

  drawMarks(state) {
    const g = this.g;
    const layer = this.layers.marks;
    layer.replaceChildren();
    const h = state.highlight || {};
    const targets = new Set(h.targets || []);
    const sources = new Set(h.sources || []);
    for (const q of targets) {
      if (q === 0) {
        el("rect", { x: Math.min(this.X(g.innerRight + g.FRAME + 6), this.X(g.W - 6)), y: g.midY + g.MID / 2 - 6,
          width: g.TRAY - 12, height: g.PL + 12, rx: 8, class: "target tray-target" }, layer);
        continue;
      }
      if (q === 25) continue;
      const { top } = pointPlace(q);
      const x = this.X(pointX(q, g));
      const y0 = top ? g.innerTop : g.midY + g.MID / 2;
      el("rect", { x: x - g.PW / 2 + 2, y: y0, width: g.PW - 4, height: g.PL, rx: 6, class: "target" }, layer);
      const counts = seatCounts(state.board);
      const bottom = state.bottom ?? 0;
      const a = bottom === 0 ? q : 25 - q;
      const own = counts.points[bottom][a];
      const { y } = checkerCentre(q, Math.min(own, 4), own + 1, true, g);
      el("circle", { cx: x, cy: y, r: g.R - 6, class: "landing" }, layer);
    }
    const bottom = state.bottom ?? 0;
    for (const node of this.checkers.values()) {
      if (Number(node.dataset.seat) !== bottom) node.classList.remove("movable", "selected");
    }
    for (const [key, ids] of this.stacks[bottom]) {
      ids.forEach((id, i) => {
        const node = this.checkers.get(id);
        const slot = key === "bar" ? 25 : key === "off" ? 0
          : (bottom === 0 ? Number(key.slice(1)) : 25 - Number(key.slice(1)));
        const top = i === ids.length - 1;
        node.classList.toggle("movable", top && sources.has(slot));
        node.classList.toggle("selected", top && h.selected === slot);
      });
    }
  }

  /** The last move of either side (state.last), and the play to compare it with
   *  (state.compare), each a group of its own (`.last-play`, `.compare-play`), named by
   *  its `label` where it has one. */
  drawLast(state) {
    const layer = this.layers.last;
    layer.replaceChildren();
    for (const [kind, play] of [["last", state.last], ["compare", state.compare]]) {
      if (!play?.moves?.length) continue;
      const group = el("g", { class: `${kind}-play`, role: play.label ? "img" : null, "aria-label": play.label ?? null }, layer);
      this.drawPlay(group, state, play, kind);
    }
  }

  /** A play ({seat, moves: [{from, to, hit}]} in the mover's numbering) drawn in `layer`:
   *  its from and to places outlined, an arrow for each checker's move (the marker of
   *  `kind`), and the hit checkers ringed where they stood and, for the last move (whose
   *  result the board shows), on their bar. */
  drawPlay(layer, state, play, kind) {
    const g = this.g;
    const bottom = state.bottom ?? 0;
    const seat = play.seat;
    const mine = seat === bottom;
    // a place of the mover: {slot (bottom numbering, or "bar"/"off"), x, y (a checker's
    // centre there), box (the outline)}
    const place = (p) => {
      if (p === 25) {
        const c = checkerCentre("bar", 0, 1, mine, g);
        return { slot: "bar", x: this.X(c.x), y: c.y,
          box: { x: this.X(g.barX) - g.BAR / 2 + 6, y: mine ? g.midY + 6 : g.innerTop, w: g.BAR - 12, h: g.PL + g.MID / 2 - 6 } };
      }
      if (p === 0) {
        const y0 = mine ? g.midY + g.MID / 2 : g.innerTop;
        return { slot: "off", x: this.X(g.trayX), y: mine ? g.innerBottom - 40 : g.innerTop + 40,
          box: { x: Math.min(this.X(g.innerRight + g.FRAME + 6), this.X(g.W - 6)), y: y0 - 4, w: g.TRAY - 12, h: g.PL + 8 } };
      }
      const a = seat === 0 ? p : 25 - p;
      const q = bottom === 0 ? a : 25 - a;
      const { top } = pointPlace(q);
      const c = checkerCentre(q, 0, 1, true, g);
      const x = this.X(pointX(q, g));
      return { slot: q, x, y: c.y,
        box: { x: x - g.PW / 2 + 3, y: top ? g.innerTop + 2 : g.midY + g.MID / 2 - 2, w: g.PW - 6, h: g.PL } };
    };
    const outline = (p, cls) => {
      const at = place(p);
      el("rect", { x: at.box.x, y: at.box.y, width: at.box.w, height: at.box.h, rx: 8, class: `last-mark ${cls}`,
        "data-slot": at.slot, "data-point": p, "data-seat": seat }, layer);
      return at;
    };
    const froms = new Set();
    const tos = new Set();
    for (const m of play.moves) {
      const a = froms.has(m.from) ? place(m.from) : outline(m.from, "last-from");
      froms.add(m.from);
      const b = tos.has(m.to) ? place(m.to) : outline(m.to, "last-to");
      tos.add(m.to);
      // the arrow stops short of the checker it points at; a compared play's runs beside
      // the last move's, so that a move of both shows as both
      const dx = b.x - a.x;
      const dy = b.y - a.y;
      const len = Math.hypot(dx, dy) || 1;
      const cut = Math.min(g.R, len / 3);
      const side = kind === "compare" ? 9 : 0;
      const [sx, sy] = [(-dy / len) * side, (dx / len) * side];
      el("line", { x1: a.x + (dx / len) * cut + sx, y1: a.y + (dy / len) * cut + sy, x2: b.x - (dx / len) * cut + sx, y2: b.y - (dy / len) * cut + sy,
        class: "last-arrow", "marker-end": `url(#${kind}-arrow-head)` }, layer);
      if (m.hit) {
        el("circle", { cx: b.x, cy: b.y, r: g.R + 3, class: "last-hit", "data-slot": b.slot, "data-point": m.to, "data-seat": seat }, layer);
      }
    }
    // the checkers that were hit, on their bar
    const hits = play.moves.filter((m) => m.hit).length;
    if (hits && kind === "last") {
      const victim = 1 - seat;
      const onBar = seatCounts(state.board).bar[victim];
      for (let i = Math.max(0, onBar - hits); i < onBar; i++) {
        const c = checkerCentre("bar", i, onBar, victim === bottom, g);
        el("circle", { cx: this.X(c.x), cy: c.y, r: g.R + 3, class: "last-hit on-bar", "data-slot": "bar", "data-seat": victim }, layer);
      }
    }
  }

  drawCube(state) {
    const g = this.g;
    const layer = this.layers.cube;
    layer.replaceChildren();
    const cube = state.cube;
    const bottom = state.bottom ?? 0;
    const match = state.match || {};
    // the cube column (desktop) or the tray column's middle (compact): an owned cube sits
    // there on its owner's side (compact), the match length on the other side
    const columnWidth = g.compact ? g.TRAY - 8 : g.SIDE - 14;
    const fit = (label, chars) => (label.length > chars
      ? { textLength: columnWidth, lengthAdjust: "spacingAndGlyphs" } : {});
    const owner = cube && !cube.offered ? cube.owner ?? null : null;
    if (match.label) {
      const below = g.compact && owner !== null && owner !== bottom;
      text(layer, this.X(g.cubeX), below ? g.midY + 58 : g.midY - 48, match.label,
        { class: "match-length", "text-anchor": "middle", ...fit(match.label, g.compact ? 5 : 8) });
    }
    if (match.crawford) {
      const label = this.t("board.crawford_short");
      text(layer, this.X(g.cubeX), g.midY + 62, label, {
        class: "crawford", "text-anchor": "middle",
        ...fit(label, 6), // fit the column whatever the language
      }).appendChild(
        Object.assign(el("title"), { textContent: this.t("board.crawford") }));
    }
    if (!cube) return;
    const size = 54;
    let x = g.cubeX;
    let y = g.midY;
    let value = cube.value;
    let cls = "cube";
    if (cube.offered) {
      // the offered cube sits in the middle of the board, showing the new value
      x = cube.offered.by === bottom ? g.rightQuarterX : g.leftQuarterX;
      y = g.midY;
      value = cube.offered.value;
      cls += " offered";
    } else if (cube.owner === null || cube.owner === undefined) {
      value = cube.value === 1 ? 64 : cube.value;
    } else if (g.compact) {
      y = cube.owner === bottom ? g.midY + 38 : g.midY - 38;
    } else {
      y = cube.owner === bottom ? g.innerBottom - size / 2 - 10 : g.innerTop + size / 2 + 10;
    }
    if (!cube.enabled) cls += " disabled";
    const grp = el("g", { class: cls, "data-cube": "1" }, layer);
    grp.style.transform = `translate(${this.X(x)}px, ${y}px)`;
    el("rect", { x: -size / 2, y: -size / 2, width: size, height: size, rx: 8, class: "cube-face" }, grp);
    text(grp, 0, 11, String(value), { class: "cube-value", "text-anchor": "middle" });
    const label = cube.offered ? this.t("board.cube_offered", { value })
      : this.t("board.cube", { value: cube.value });
    el("title", {}, grp).textContent = label;
  }

  drawDice(state) {
    const g = this.g;
    const layer = this.layers.dice;
    layer.replaceChildren();
    const bottom = state.bottom ?? 0;
    const dice = state.dice;
    if (state.roll) {
      const grp = el("g", { class: "roll-prompt", "data-action": "roll" }, layer);
      el("rect", { x: this.X(g.rightQuarterX) - 80, y: g.midY - 28, width: 160, height: 56, rx: 28, class: "roll-pill" }, grp);
      text(grp, this.X(g.rightQuarterX), g.midY + 9, this.t("board.roll"), { class: "roll-text", "text-anchor": "middle" });
    }
    if (!dice || !(dice.values || dice.split)) { this.lastRoll = null; return; }
    const sideX = (seat) => this.X(seat === bottom ? g.rightQuarterX : g.leftQuarterX);
    const left = [...(dice.left || [])];
    const usedOf = (values) => values.map((v) => {
      const i = left.indexOf(v);
      if (i >= 0) { left.splice(i, 1); return false; }
      return true;
    });
    if (dice.split) {
      // the opening: one die for each side (a tie is thrown again)
      const [d0, d1] = dice.split;
      const used = usedOf([d0, d1]);
      const rollKey = `open:${d0}:${d1}:${dice.tie ? "tie" : ""}`;
      const fresh = !dice.previous && rollKey !== this.lastRoll;
      this.lastRoll = rollKey;
      for (const seat of [0, 1]) {
        // beside the Roll button when it is there
        const x = state.roll && seat === bottom ? this.X(g.rightQuarterX + 125) : sideX(seat);
        const confirmable = dice.confirmable && seat === dice.seat;
        this.diceGroup(layer, x, [dice.split[seat]], [used[seat] || !!dice.previous], {
          seat, confirmable, fresh, cls: `opening${dice.tie ? " tie" : ""}${dice.previous ? " previous" : ""}`,
        });
      }
      if (dice.tie) {
        text(layer, this.X(g.barX), g.midY + 8, this.t("board.tie"), { class: "tie-label", "text-anchor": "middle" });
      }
      return;
    }
    const values = dice.values;
    const used = dice.previous ? values.map(() => true) : usedOf(values);
    if (state.roll && dice.seat === bottom) { this.lastRoll = null; return; }
    // a new roll tumbles in (once: later renders of the same roll stay still)
    const rollKey = `${dice.seat}:${values.join("")}`;
    const fresh = !dice.previous && !used.some(Boolean) && rollKey !== this.lastRoll;
    this.lastRoll = dice.previous ? this.lastRoll : rollKey;
    this.diceGroup(layer, sideX(dice.seat), values, used, {
      seat: dice.seat, confirmable: dice.confirmable, fresh, cls: dice.previous ? "previous" : "" });
  }

  /** Dice drawn side by side around `cx` (values in the order given: higher first). */
  diceGroup(layer, cx, values, used, { seat, confirmable = false, fresh = false, cls = "" }) {
    const g = this.g;
    const size = values.length === 4 ? 44 : 52;
    const gap = 12;
    const total = values.length * size + (values.length - 1) * gap;
    const grp = el("g", { class: `dice seat${seat}${confirmable ? " confirmable" : ""}${fresh ? " fresh" : ""}${cls ? ` ${cls}` : ""}`,
      "data-action": confirmable ? "confirm" : "dice", "data-seat": seat }, layer);
    // the whole dice area takes the click, gaps included
    el("rect", { x: cx - total / 2 - 14, y: g.midY - size / 2 - 14, width: total + 28,
      height: size + (confirmable ? 48 : 28), rx: 12, class: "dice-area" }, grp);
    values.forEach((v, i) => {
      const x = cx - total / 2 + i * (size + gap);
      const die = el("g", { class: `die${used[i] ? " used" : ""}`, "data-value": v }, grp);
      die.style.transform = `translate(${x}px, ${g.midY - size / 2}px)`;
      const face = el("g", { class: "die-body" }, die);
      face.style.animationDelay = `${i * 60}ms`;
      el("rect", { width: size, height: size, rx: 9, class: "die-face" }, face);
      const s = size / 4;
      for (const [dx, dy] of PIPS[v]) {
        el("circle", { cx: size / 2 + dx * s, cy: size / 2 + dy * s, r: size / 11, class: "pip" }, face);
      }
    });
    if (confirmable) {
      text(grp, cx, g.midY + size / 2 + 22, this.t("board.click_to_confirm"), { class: "dice-hint", "text-anchor": "middle" });
    }
    el("title", {}, grp).textContent = this.t("board.dice", { dice: values.join(" ") });
    return grp;
  }

  drawStrips(state) {
    const g = this.g;
    const layer = this.layers.strips;
    layer.replaceChildren();
    const bottom = state.bottom ?? 0;
    const pips = pipCounts(state.board);
    for (const seat of [1 - bottom, bottom]) {
      const player = (state.players || [])[seat] || {};
      const top = seat !== bottom;
      const y0 = top ? 0 : g.boardBottom;
      const cy = y0 + g.STRIP / 2;
      const grp = el("g", { class: `strip ${top ? "top" : "bottom"}${state.turn === seat ? " on-turn" : ""}`,
        "data-seat": seat, "data-bot": player.bot ? "true" : "false" }, layer);
      el("rect", { x: 0, y: y0 + 6, width: g.W, height: g.STRIP - 12, rx: 12, class: "strip-bg" }, grp);
      const compact = !!state.compact;
      el("circle", { cx: 34, cy, r: compact ? 22 : 17, class: `chip seat${seat}` }, grp);
      if (state.turn === seat) el("circle", { cx: 34, cy, r: compact ? 28 : 23, class: "turn-ring" }, grp);
      const clock = player.clock;
      const name = (player.name || "—").slice(0, compact ? (clock ? 11 : 16) : 20);
      const hasScore = player.score !== undefined && player.score !== null;
      // score and clock from the right edge
      let right = g.W - 8;
      if (clock) right -= 2 * (compact ? 150 : 122);
      const scoreX = clock ? right - 80 : (compact ? right - 80 : 470);
      if (compact) {
        // phones: one line of large text, the pip count labelled; a long label (some
        // languages) is squeezed into the room the name leaves
        const nameNode = text(grp, 70, cy + 14, player.bot ? `${name} · ${this.t("board.bot")}` : name, { class: "name" });
        const pipLabel = this.t("board.pips", { pips: pips[seat] });
        const room = scoreX - 14 - (70 + nameNode.getComputedTextLength() + 24);
        const pipNode = text(grp, scoreX - 14, cy + 12, pipLabel, { class: "sub pips", "text-anchor": "end", "data-pips": pips[seat] });
        if (room > 0 && pipNode.getComputedTextLength() > room) {
          pipNode.setAttribute("textLength", String(room));
          pipNode.setAttribute("lengthAdjust", "spacingAndGlyphs");
        }
      } else {
        text(grp, 64, cy - 3, name, { class: "name" });
        const sub = player.bot ? [this.t("board.bot")] : [];
        if (player.rating !== undefined && player.rating !== null) sub.push(this.t("board.rating", { rating: Math.round(player.rating) }));
        sub.push(this.t("board.pips", { pips: pips[seat] }));
        text(grp, 64, cy + 22, sub.join(" · "), { class: "sub pips", "data-pips": pips[seat] });
      }
      if (hasScore) {
        el("rect", { x: scoreX, y: cy - 26, width: 68, height: 52, rx: 8, class: "score-box" }, grp);
        text(grp, scoreX + 34, cy + (compact ? 14 : 11), String(player.score), { class: "score", "text-anchor": "middle" });
      }
      // clock: two parts (delay | reserve, or move | game)
      if (clock) {
        const running = clock.running ? " running" : "";
        const low = clock.low ? " low" : "";
        const cg = el("g", { class: `clock${running}${low}`, "data-clock": seat }, grp);
        const parts = [[clock.aLabel, clock.a, "a"], [clock.bLabel, clock.b, "b"]];
        const w = compact ? 142 : 114;
        parts.forEach(([label, seconds, part], i) => {
          const x = right + 8 + i * (w + 8);
          el("rect", { x, y: cy - 28, width: w, height: 56, rx: 8, class: `clock-part part-${part}${clock.active === part ? " active" : ""}` }, cg);
          el("title", {}, cg).textContent = label;
          if (!compact) text(cg, x + w / 2, cy - 9, label, { class: "clock-label", "text-anchor": "middle" });
          text(cg, x + w / 2, cy + (compact ? 13 : 19), formatSeconds(seconds), { class: "clock-time", "text-anchor": "middle" });
        });
      }
    }
  }

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

/** Keyboard navigation: the slot reached from `q` by an arrow key, as drawn on screen. */
export function slotNeighbour(q, key, flipped) {
  // Build the on-screen grid: row 0 (top) and row 1 (bottom), columns 0..13 where 6 is the
  // bar and 13 the tray column (unmirrored), then mirror.
  const pos = (slot) => {
    if (slot === 25) return { row: 1, col: 6 };
    if (slot === 0) return { row: 1, col: 13 };
    const { col, top } = pointPlace(slot);
    return { row: top ? 0 : 1, col: col < 6 ? col : col + 1 };
  };
  const at = (row, col) => {
    if (col === 6) return 25;
    if (col === 13) return 0;
    const c = col < 6 ? col : col - 1;
    return row === 0 ? c + 13 : 12 - c;
  };
  let { row, col } = pos(q);
  const dx = { ArrowLeft: -1, ArrowRight: 1 }[key] || 0;
  const step = flipped ? -dx : dx;
  if (key === "ArrowUp") row = 0;
  if (key === "ArrowDown") row = 1;
  col = Math.max(0, Math.min(13, col + step));
  if (row === 0 && col === 13) col = 12;
  return at(row, col);
}
