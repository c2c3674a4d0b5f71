// @ts-check
// round/view/hint.js — the hint panel (practice against the computer): the best plays with
// their equities (a click or focus draws one on the board), or before the roll the cube
// action and the chances; drawn again only when the controller's hint changed.

import { language, t } from "../../i18n.js";
import { h } from "../../ui.js";
import { playMoves } from "../../rules.js";
import { HINT_PLAYS } from "../hints.js";

/** @typedef {import("../ctrl.js").RoundCtrl} RoundCtrl */

/** An equity with its sign, three decimals, in the page's language ("+0.143").
 *  @param {number | null | undefined} value */
export function signed(value) {
  if (value === null || value === undefined) return "—";
  return new Intl.NumberFormat(language(), { minimumFractionDigits: 3, maximumFractionDigits: 3, signDisplay: "exceptZero" }).format(value);
}

/** @param {number} value */
function percent(value) {
  return new Intl.NumberFormat(language(), { style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(value);
}

export class HintView {
  constructor() {
    this.el = h("section", { class: "hint-panel card", "data-hint": "", hidden: true, "aria-live": "polite" });
    /** @type {unknown} the hint drawn */
    this.drawn = null;
  }

  /** @param {RoundCtrl} ctrl */
  draw(ctrl) {
    const shown = ctrl.hints.shown;
    if (shown === this.drawn) return;
    this.drawn = shown;
    const box = this.el;
    if (!shown) {
      box.hidden = true;
      box.replaceChildren();
      return;
    }
    const close = h("button", { type: "button", class: "hint-close", "data-act": "hint-close", "aria-label": t("hint.close"),
      onclick: () => ctrl.hints.close() }, "×");
    let body;
    if (shown.pending) body = h("p", { class: "muted" }, t("hint.thinking"));
    else if (shown.error) body = h("p", { class: "error", "data-hint-error": "" }, shown.error);
    else if (shown.kind === "plays") body = hintPlays(ctrl, shown.answer);
    else body = hintCube(shown.answer);
    box.replaceChildren(h("div", { class: "hint-head" },
      h("h2", {}, shown.kind === "plays" ? t("hint.plays_title") : t("hint.cube_title")), close), body);
    box.hidden = false;
  }
}

/** The best plays, best first, with their equity and what each gives up to the best; a
 *  click (or focus) draws the play on the board as arrows. @param {RoundCtrl} ctrl @param {any} answer */
function hintPlays(ctrl, answer) {
  const plays = answer.plays.slice(0, HINT_PLAYS);
  if (!plays.length || !plays[0].play) return h("p", {}, t("hint.no_play"));
  const best = plays[0].equity;
  const list = h("ol", { class: "hint-plays" });
  for (const [i, p] of plays.entries()) {
    const preview = { seat: /** @type {number} */ (ctrl.you), moves: playMoves(p.play) };
    const button = h("button", { type: "button", class: "hint-play", "data-play": p.play, "data-equity": p.equity, "aria-pressed": "false" },
      h("span", { class: "hint-move" }, p.play),
      h("span", { class: "hint-equity" }, signed(p.equity)),
      h("span", { class: "hint-diff muted" }, i ? signed(p.equity - best) : ""));
    const show = () => {
      if (ctrl.hints.shown?.preview === preview) return;
      for (const b of list.querySelectorAll(".hint-play")) b.setAttribute("aria-pressed", String(b === button));
      ctrl.hints.preview(preview);
    };
    button.addEventListener("click", show);
    button.addEventListener("focus", show);
    list.append(h("li", {}, button));
  }
  return h("div", {}, list, h("p", { class: "muted small" }, t("hint.plays_note", { plies: answer.plies })));
}

/** Before the roll: the right cube action with the equity of each choice, and the chances.
 *  @param {any} answer */
function hintCube(answer) {
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
