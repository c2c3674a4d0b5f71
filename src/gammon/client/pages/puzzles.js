// @ts-check
// pages/puzzles.js — puzzles made from real blunders (#/puzzles[/ID]): the position on the
// board, the question, the roll played on the board (a click or tap picks a checker and lights
// where it can go, a click on a lit point moves it there; arrows and Enter do the same) or the
// cube's choices, then the verdict: right or wrong, what the answer loses, the engine's
// answers, both ratings moved and the match it came from. The page draws its controller
// (pages/puzzles/ctrl.js, no DOM) and turns the board, buttons and the theme into its actions.

import { BoardView, NS, slotNeighbour } from "../board.js";
import { t } from "../i18n.js";
import { diceValues } from "../movelist.js";
import { api } from "../net.js";
import { PuzzleCtrl, THEMES } from "./puzzles/ctrl.js";
import { Page, select } from "./page.js";
import { h } from "../ui.js";

/** An equity as the review shows it (EMG, signed, three decimals). @param {number} x */
const equity = (x) => (x >= 0 ? "+" : "") + x.toFixed(3);

export class PuzzlesPage extends Page {
  /** @param {any} app @param {string} id */
  constructor(app, id) {
    super(app);
    this.ctrl = new PuzzleCtrl(id, { api, changed: () => this.draw() });
    /** @type {number | null} the point the keyboard is on */
    this.cursor = null;
    this.svg = /** @type {SVGSVGElement} */ (document.createElementNS(NS, "svg"));
    this.svg.setAttribute("aria-label", t("board.label"));
    this.view = new BoardView(this.svg, t);
    this.rating = h("p", { class: "puzzle-rating" });
    this.panel = h("div", { class: "stack", "aria-live": "polite" });
  }

  mount(main) {
    this.svg.addEventListener("click", (e) => this.ctrl.click(this.view.slotAt(e.clientX, e.clientY)));
    this.svg.addEventListener("keydown", (e) => this.onKey(e));
    const theme = /** @type {HTMLSelectElement} */ (select("theme", [["", t("puzzle.theme_any")], ...THEMES.map((th) => [th, t(`puzzle.theme.${th}`)])], this.ctrl.theme));
    theme.setAttribute("aria-label", t("puzzle.theme"));
    theme.addEventListener("change", () => this.ctrl.next(theme.value));
    main.replaceChildren(h("h1", {}, t("puzzle.title")),
      h("div", { class: "puzzles" },
        h("div", { class: "board-wrap" }, this.svg),
        h("section", { class: "card stack puzzle-side" }, this.rating,
          h("label", { class: "field" }, h("span", {}, t("puzzle.theme")), theme), this.panel)));
    this.ctrl.start();
  }

  /** Arrows walk the points, Enter or Space clicks the one the keyboard is on.
   *  @param {KeyboardEvent} e */
  onKey(e) {
    const slot = /** @type {HTMLElement} */ (e.target).dataset?.slot;
    if (slot === undefined) return;
    if (e.key.startsWith("Arrow")) {
      e.preventDefault();
      this.cursor = slotNeighbour(Number(slot), e.key, !!this.app.options.flip);
      this.drawBoard();
      this.view.focusSlot(this.cursor);
    } else if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      this.cursor = Number(slot);
      this.ctrl.click(this.cursor);
    }
  }

  draw() {
    const c = this.ctrl;
    const r = c.rating;
    this.rating.replaceChildren(r ? t("puzzle.your_rating", { rating: Math.round(r.rating), rd: Math.round(r.rd), solved: r.solved, attempts: r.attempts }) : "");
    this.drawBoard();
    this.panel.replaceChildren(...this.panelParts());
    if (c.puzzle) document.title = `${t("puzzle.title")} #${c.puzzle.id} · gammon`;
  }

  drawBoard() {
    const c = this.ctrl;
    const p = c.puzzle;
    const board = c.board;
    this.svg.style.display = board ? "" : "none";
    if (!p || !board) return;
    const o = this.app.options;
    const focus = c.selected;
    const context = p.context;
    this.view.render({
      board, bottom: 0, flipped: !!o.flip, numbers: o.numbering !== false, quality: o.graphics,
      dice: p.dice ? { values: diceValues(p.dice, true), left: c.moves ? c.moves.dice_left : p.dice, seat: 0 } : null,
      roll: false, last: null, turn: p.kind === "take" ? 1 : 0,
      cube: { value: context.cube, owner: context.cube_owner === "centred" ? null : context.cube_owner === "you" ? 0 : 1, enabled: true,
        offered: p.kind === "take" ? { by: 1, value: context.cube * 2 } : null },
      players: [t("puzzle.you"), t("puzzle.opponent")].map((name, seat) => ({ name, rating: null, score: context.length ? context.score[seat] : null, clock: null })),
      match: { length: context.length, crawford: context.crawford, label: context.length ? t("board.length", { count: context.length }) : t("board.money") },
      highlight: { sources: c.sources, targets: focus === null ? [] : [...c.reachOf(focus).keys()], selected: focus, cursor: this.cursor },
      compact: this.svg.clientWidth > 0 && this.svg.clientWidth < 620,
    });
  }

  /** The side panel: the question and its controls, or the verdict; what went wrong. */
  panelParts() {
    const c = this.ctrl;
    const p = c.puzzle;
    const parts = [];
    if (c.busy && !p) parts.push(h("p", { class: "muted" }, t("common.loading")));
    if (c.error) parts.push(h("p", { class: "error-text", role: "alert" }, c.error));
    if (!p) {
      if (c.exhausted && c.theme) parts.push(h("button", { type: "button", onclick: () => c.next("") }, t("puzzle.any_theme")));
      return parts;
    }
    parts.push(h("h2", { class: "puzzle-question" }, c.question),
      h("p", { class: "muted small" }, c.context),
      h("p", { class: "small" }, p.themes.map((th) => h("span", { class: "tag" }, t(`puzzle.theme.${th}`)))));
    if (c.verdict) return [...parts, ...this.verdictParts()];
    if (p.kind === "checker") {
      parts.push(h("p", { class: "puzzle-play", "data-play": c.play || "" }, c.play ? t("puzzle.your_play", { play: c.play }) : t("puzzle.move_hint")),
        h("div", { class: "row" },
          h("button", { type: "button", "data-act": "undo", disabled: !c.steps.length || c.busy, onclick: () => c.undo() }, t("puzzle.undo")),
          h("button", { type: "button", class: "primary", "data-act": "submit", disabled: !c.play || c.busy, onclick: () => c.submit() }, t("puzzle.submit"))));
    } else {
      parts.push(h("div", { class: "row" }, p.choices.map((choice) =>
        h("button", { type: "button", class: "primary", "data-choice": choice, disabled: c.busy, onclick: () => c.choose(choice) }, t(`puzzle.choice.${choice.replace(" ", "_")}`)))));
    }
    return parts;
  }

  verdictParts() {
    const c = this.ctrl;
    const v = /** @type {import("../wire.js").PuzzleVerdictView} */ (c.verdict);
    const name = (answer) => (c.puzzle?.kind === "checker" ? answer : t(`puzzle.choice.${answer.replace(" ", "_")}`));
    const rows = v.top.map((a) => h("tr", { class: a.answer === v.answer ? "mine" : "" },
      h("th", { scope: "row" }, name(a.answer), a.answer === v.best ? " ✓" : ""), h("td", { class: "num" }, equity(a.equity))));
    const source = v.source;
    return [
      h("p", { class: `verdict ${v.right ? "ok" : "bad"}`, "data-verdict": v.right ? "right" : "wrong" },
        v.right ? t("puzzle.right") : t("puzzle.wrong", { error: v.error.toFixed(3), best: name(v.best) })),
      h("p", { class: "small" }, t("puzzle.your_answer", { answer: name(v.answer) }), " · ", t("puzzle.graded_by", { grade: v.graded_by })),
      h("table", { class: "review-table" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("puzzle.answer")), h("th", { scope: "col" }, t("puzzle.equity")))),
        h("tbody", {}, rows)),
      h("p", { class: "rating-change" }, t("puzzle.rating_change", { before: Math.round(v.rating_change.before), after: Math.round(v.rating_change.after) })),
      source ? h("p", { class: "small" }, h("a", { href: `#/review/${source.match}` }, t("puzzle.source", { game: source.game, move: source.move_number }))) : null,
      h("button", { type: "button", class: "primary", "data-act": "next", onclick: () => c.next() }, t("puzzle.next")),
    ];
  }
}
