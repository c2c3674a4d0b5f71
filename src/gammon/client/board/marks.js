// @ts-check
// board/marks.js — what BoardView draws over the checkers: where a checker may go and
// which ones may move, the last move and a play to compare it with (outlines, arrows, hit
// checkers ringed).

import { seatCounts } from "../rules.js";
import { pointPlace, pointX, checkerCentre } from "./geometry.js";
import { el } from "./svg.js";

/** @typedef {import("../board.js").BoardView} BoardView */

/** @param {BoardView} view the board drawn on */
export function drawMarks(view, state) {
  const g = view.g;
  const layer = view.layers.marks;
  layer.replaceChildren();
  const h = state.highlight || {};
  const targets = new Set(h.targets || []);
  const sources = new Set(h.sources || []);
  for (const q of targets) {
    if (q === 0) {
      el("rect", { x: Math.min(view.X(g.innerRight + g.FRAME + 6), view.X(g.W - 6)), y: g.midY + g.MID / 2 - 6,
        width: g.TRAY - 12, height: g.PL + 12, rx: 8, class: "target tray-target" }, layer);
      continue;
    }
    if (q === 25) continue;
    const { top } = pointPlace(q);
    const x = view.X(pointX(q, g));
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
  for (const node of view.checkers.values()) {
    if (Number(node.dataset.seat) !== bottom) node.classList.remove("movable", "selected");
  }
  for (const [key, ids] of view.stacks[bottom]) {
    ids.forEach((id, i) => {
      const node = view.checkers.get(id);
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
 *  its `label` where it has one.
 *  @param {BoardView} view the board drawn on */
export function drawLast(view, state) {
  const layer = view.layers.last;
  layer.replaceChildren();
  for (const [kind, play] of [["last", state.last], ["compare", state.compare]]) {
    if (!play?.moves?.length) continue;
    const group = el("g", { class: `${kind}-play`, role: play.label ? "img" : null, "aria-label": play.label ?? null }, layer);
    drawPlay(view, group, state, play, kind);
  }
}

/** A play ({seat, moves: [{from, to, hit}]} in the mover's numbering) drawn in `layer`:
 *  its from and to places outlined, an arrow for each checker's move (the marker of
 *  `kind`), and the hit checkers ringed where they stood and, for the last move (whose
 *  result the board shows), on their bar.
 *  @param {BoardView} view the board drawn on */
export function drawPlay(view, layer, state, play, kind) {
  const g = view.g;
  const bottom = state.bottom ?? 0;
  const seat = play.seat;
  const mine = seat === bottom;
  // a place of the mover: {slot (bottom numbering, or "bar"/"off"), x, y (a checker's
  // centre there), box (the outline)}
  const place = (p) => {
    if (p === 25) {
      const c = checkerCentre("bar", 0, 1, mine, g);
      return { slot: "bar", x: view.X(c.x), y: c.y,
        box: { x: view.X(g.barX) - g.BAR / 2 + 6, y: mine ? g.midY + 6 : g.innerTop, w: g.BAR - 12, h: g.PL + g.MID / 2 - 6 } };
    }
    if (p === 0) {
      const y0 = mine ? g.midY + g.MID / 2 : g.innerTop;
      return { slot: "off", x: view.X(g.trayX), y: mine ? g.innerBottom - 40 : g.innerTop + 40,
        box: { x: Math.min(view.X(g.innerRight + g.FRAME + 6), view.X(g.W - 6)), y: y0 - 4, w: g.TRAY - 12, h: g.PL + 8 } };
    }
    const a = seat === 0 ? p : 25 - p;
    const q = bottom === 0 ? a : 25 - a;
    const { top } = pointPlace(q);
    const c = checkerCentre(q, 0, 1, true, g);
    const x = view.X(pointX(q, g));
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
      el("circle", { cx: view.X(c.x), cy: c.y, r: g.R + 3, class: "last-hit on-bar", "data-slot": "bar", "data-seat": victim }, layer);
    }
  }
}
