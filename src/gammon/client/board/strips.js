// @ts-check
// board/strips.js — BoardView's player strips above and below the board: name, rating or
// bot mark, pip count, score and the clock's two parts.

import { pipCounts } from "../rules.js";
import { el, text } from "./svg.js";

/** @typedef {import("../board.js").BoardView} BoardView */

export function formatSeconds(s) {
  if (s === null || s === undefined || !isFinite(s)) return "–";
  const total = Math.max(0, Math.ceil(s));
  const m = Math.floor(total / 60);
  const sec = total % 60;
  return `${m}:${String(sec).padStart(2, "0")}`;
}

/** @param {BoardView} view the board drawn on */
export function drawStrips(view, state) {
  const g = view.g;
  const layer = view.layers.strips;
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
      const nameNode = text(grp, 70, cy + 14, player.bot ? `${name} · ${view.t("board.bot")}` : name, { class: "name" });
      const pipLabel = view.t("board.pips", { pips: pips[seat] });
      const room = scoreX - 14 - (70 + nameNode.getComputedTextLength() + 24);
      const pipNode = text(grp, scoreX - 14, cy + 12, pipLabel, { class: "sub pips", "text-anchor": "end", "data-pips": pips[seat] });
      if (room > 0 && pipNode.getComputedTextLength() > room) {
        pipNode.setAttribute("textLength", String(room));
        pipNode.setAttribute("lengthAdjust", "spacingAndGlyphs");
      }
    } else {
      text(grp, 64, cy - 3, name, { class: "name" });
      const sub = player.bot ? [view.t("board.bot")] : [];
      if (player.rating !== undefined && player.rating !== null) sub.push(view.t("board.rating", { rating: Math.round(player.rating) }));
      sub.push(view.t("board.pips", { pips: pips[seat] }));
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
