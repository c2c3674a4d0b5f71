// @ts-check
// board/dice.js — BoardView's cube (with the match length and the Crawford mark) and dice
// (a roll's, the opening's one die a side, the Roll button); a new roll tumbles in once.

import { el, text } from "./svg.js";

/** @typedef {import("../board.js").BoardView} BoardView */

const PIPS = {
  1: [[0, 0]],
  2: [[-1, -1], [1, 1]],
  3: [[-1, -1], [0, 0], [1, 1]],
  4: [[-1, -1], [1, -1], [-1, 1], [1, 1]],
  5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]],
  6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]],
};

/** @param {BoardView} view the board drawn on */
export function drawCube(view, state) {
  const g = view.g;
  const layer = view.layers.cube;
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
    text(layer, view.X(g.cubeX), below ? g.midY + 58 : g.midY - 48, match.label,
      { class: "match-length", "text-anchor": "middle", ...fit(match.label, g.compact ? 5 : 8) });
  }
  if (match.crawford) {
    const label = view.t("board.crawford_short");
    text(layer, view.X(g.cubeX), g.midY + 62, label, {
      class: "crawford", "text-anchor": "middle",
      ...fit(label, 6), // fit the column whatever the language
    }).appendChild(
      Object.assign(el("title"), { textContent: view.t("board.crawford") }));
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
  grp.style.transform = `translate(${view.X(x)}px, ${y}px)`;
  el("rect", { x: -size / 2, y: -size / 2, width: size, height: size, rx: 8, class: "cube-face" }, grp);
  text(grp, 0, 11, String(value), { class: "cube-value", "text-anchor": "middle" });
  const label = cube.offered ? view.t("board.cube_offered", { value })
    : view.t("board.cube", { value: cube.value });
  el("title", {}, grp).textContent = label;
}

/** @param {BoardView} view the board drawn on */
export function drawDice(view, state) {
  const g = view.g;
  const layer = view.layers.dice;
  layer.replaceChildren();
  const bottom = state.bottom ?? 0;
  const dice = state.dice;
  if (state.roll) {
    const grp = el("g", { class: "roll-prompt", "data-action": "roll" }, layer);
    el("rect", { x: view.X(g.rightQuarterX) - 80, y: g.midY - 28, width: 160, height: 56, rx: 28, class: "roll-pill" }, grp);
    text(grp, view.X(g.rightQuarterX), g.midY + 9, view.t("board.roll"), { class: "roll-text", "text-anchor": "middle" });
  }
  if (!dice || !(dice.values || dice.split)) { view.lastRoll = null; return; }
  const sideX = (seat) => view.X(seat === bottom ? g.rightQuarterX : g.leftQuarterX);
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
    const fresh = !dice.previous && rollKey !== view.lastRoll;
    view.lastRoll = rollKey;
    for (const seat of [0, 1]) {
      // beside the Roll button when it is there
      const x = state.roll && seat === bottom ? view.X(g.rightQuarterX + 125) : sideX(seat);
      const confirmable = dice.confirmable && seat === dice.seat;
      diceGroup(view, layer, x, [dice.split[seat]], [used[seat] || !!dice.previous], {
        seat, confirmable, fresh, cls: `opening${dice.tie ? " tie" : ""}${dice.previous ? " previous" : ""}`,
      });
    }
    if (dice.tie) {
      text(layer, view.X(g.barX), g.midY + 8, view.t("board.tie"), { class: "tie-label", "text-anchor": "middle" });
    }
    return;
  }
  const values = dice.values;
  const used = dice.previous ? values.map(() => true) : usedOf(values);
  if (state.roll && dice.seat === bottom) { view.lastRoll = null; return; }
  // a new roll tumbles in (once: later renders of the same roll stay still)
  const rollKey = `${dice.seat}:${values.join("")}`;
  const fresh = !dice.previous && !used.some(Boolean) && rollKey !== view.lastRoll;
  view.lastRoll = dice.previous ? view.lastRoll : rollKey;
  diceGroup(view, layer, sideX(dice.seat), values, used, {
    seat: dice.seat, confirmable: dice.confirmable, fresh, cls: dice.previous ? "previous" : "" });
}

/** Dice drawn side by side around `cx` (values in the order given: higher first).
 *  @param {BoardView} view the board drawn on */
export function diceGroup(view, layer, cx, values, used, { seat, confirmable = false, fresh = false, cls = "" }) {
  const g = view.g;
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
    text(grp, cx, g.midY + size / 2 + 22, view.t("board.click_to_confirm"), { class: "dice-hint", "text-anchor": "middle" });
  }
  el("title", {}, grp).textContent = view.t("board.dice", { dice: values.join(" ") });
  return grp;
}
