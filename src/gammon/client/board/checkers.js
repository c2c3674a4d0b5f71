// @ts-check
// board/checkers.js — the checkers of BoardView: each keeps its SVG element while it
// stays on the board, so a checker that moves slides to its new place (a CSS transition on
// its transform), and the stacks are drawn with their counts.

import { seatCounts } from "../rules.js";
import { toBottom, checkerCentre } from "./geometry.js";
import { el, text } from "./svg.js";

/** @typedef {import("../board.js").BoardView} BoardView */

/** @param {BoardView} view the board drawn on */
export function reconcile(view, state) {
  // Target stacks per seat, keyed in player 0's numbering; checkers keep their identity
  // where they stay, and the ones that left a slot fill the slots that gained.
  const counts = seatCounts(state.board);
  for (const seat of [0, 1]) {
    const target = new Map();
    for (let a = 1; a <= 24; a++) if (counts.points[seat][a]) target.set(`p${a}`, counts.points[seat][a]);
    if (counts.bar[seat]) target.set("bar", counts.bar[seat]);
    if (counts.off[seat]) target.set("off", counts.off[seat]);
    const stacks = view.stacks[seat];
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
          id = view.nextId++;
          const node = el("g", { class: `checker seat${seat}`, "data-seat": seat });
          el("circle", { r: view.g.R - 1, class: "body" }, node);
          el("circle", { r: view.g.R - 9, class: "ring" }, node);
          view.layers.checkers.appendChild(node);
          view.checkers.set(id, node);
        }
        ids.push(id);
      }
      stacks.set(key, ids);
    }
    for (const id of pool) {
      view.checkers.get(id)?.remove();
      view.checkers.delete(id);
    }
  }
}

/** @param {BoardView} view the board drawn on */
export function drawCheckers(view, state) {
  const g = view.g;
  reconcile(view, state);
  const labels = view.layers.labels;
  labels.replaceChildren();
  const bottom = state.bottom ?? 0;
  for (const seat of [0, 1]) {
    const mine = seat === bottom;
    for (const [key, ids] of view.stacks[seat]) {
      const n = ids.length;
      ids.forEach((id, i) => {
        const node = view.checkers.get(id);
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
        x = view.X(x);
        if (node !== view.pinned) node.style.transform = `translate(${x}px, ${y}px)`;
        node.dataset.slot = key;
        node.dataset.index = String(i);
        node.style.zIndex = String(i);
        if (i === n - 1 && n > 5 && key !== "off") {
          text(labels, x, y + 7, String(n), { class: `stack-count seat${seat}`, "text-anchor": "middle" });
        }
      });
      // keep the stack order in the DOM (later checkers drawn on top)
      for (const id of ids) view.layers.checkers.appendChild(view.checkers.get(id));
    }
  }
  // borne-off counts
  const counts = seatCounts(state.board);
  for (const seat of [0, 1]) {
    const mine = seat === bottom;
    if (counts.off[seat]) {
      text(labels, view.X(g.trayX), mine ? g.innerBottom - 18 - counts.off[seat] * 18 : g.innerTop + 30 + counts.off[seat] * 18,
        String(counts.off[seat]), { class: "off-count", "text-anchor": "middle" });
    }
  }
}
