// @ts-check
// pages/puzzles.js — puzzles made from real blunders (#/puzzles[/ID]), and the player's own
// mistakes as a deck of flashcards (#/mistakes, the same page over the deck): the position on the
// board, the question, the roll played on the board (a click or tap picks a checker and lights
// where it can go, a click on a lit point moves it there; arrows and Enter do the same) or the
// cube's choices, then the verdict: right or wrong, what the answer loses, the engine's
// answers, both ratings moved (the deck: when the card comes back) and the match it came from.
// The page draws its controller (pages/puzzles/ctrl.js, no DOM) and turns the board, buttons
// and the theme into its actions.

import { pageTitle } from "../attention.js";
import { BoardView, NS, slotNeighbour } from "../board.js";
import { language, t } from "../i18n.js";
import { diceValues } from "../movelist.js";
import { api } from "../net.js";
import { PuzzleCtrl, THEMES } from "./puzzles/ctrl.js";
import { Page, select } from "./page.js";
import { h } from "../ui.js";

/** An equity as the review shows it (EMG, signed, three decimals). @param {number} x */
const equity = (x) => (x >= 0 ? "+" : "") + x.toFixed(3);

/** A time (seconds since the epoch) in the player's language. @param {number} seconds */
const when = (seconds) => new Date(seconds * 1000).toLocaleString(language(), { dateStyle: "medium", timeStyle: "short" });

export class PuzzlesPage extends Page {
  /** @param {any} app @param {string} id @param {{deck?: boolean}} [how] `deck`: the
   *  player's own deck (#/mistakes) */
  constructor(app, id, { deck = false } = {}) {
    super(app);
    this.ctrl = new PuzzleCtrl(id, { api, changed: () => this.draw() }, { deck });
    /** @type {number | null} the point the keyboard is on */
    this.cursor = null;
    this.svg = /** @type {SVGSVGElement} */ (document.createElementNS(NS, "svg"));
    this.svg.setAttribute("aria-label", t("board.label"));
    this.view = new BoardView(this.svg, t);
    this.rating = h("div", { class: "puzzle-rating" });
    this.panel = h("div", { class: "stack", "aria-live": "polite" });
  }

  mount(main) {
    this.svg.addEventListener("click", (e) => this.ctrl.click(this.view.slotAt(e.clientX, e.clientY)));
    this.svg.addEventListener("keydown", (e) => this.onKey(e));
    const theme = /** @type {HTMLSelectElement} */ (select("theme", [["", t("puzzle.theme_any")], ...THEMES.map((th) => [th, t(`puzzle.theme.${th}`)])], this.ctrl.theme));
    theme.setAttribute("aria-label", t("puzzle.theme"));
    theme.addEventListener("change", () => this.ctrl.next(theme.value));
    main.replaceChildren(h("h1", {}, this.title),
      h("div", { class: "puzzles" },
        h("div", { class: "board-wrap" }, this.svg),
        h("section", { class: "card stack puzzle-side" }, this.rating,
          h("label", { class: "field" }, h("span", {}, t("puzzle.theme")), theme),
          this.ctrl.deckMode ? null : h("button", { type: "button", "data-act": "daily", onclick: () => this.ctrl.daily() }, t("puzzle.daily")),
          this.panel)));
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

  get title() {
    return this.ctrl.deckMode ? t("deck.title") : t("puzzle.title");
  }

  draw() {
    const c = this.ctrl;
    const r = c.rating;
    if (c.deckMode) this.rating.replaceChildren(...this.deckParts());
    else this.rating.replaceChildren(r ? t("puzzle.your_rating", { rating: Math.round(r.rating), rd: Math.round(r.rd), solved: r.solved, attempts: r.attempts }) : "");
    this.drawBoard();
    this.panel.replaceChildren(...this.panelParts());
    if (c.puzzle) pageTitle(`${this.title} #${c.puzzle.id} · gammon`);
  }

  /** The deck: the cards due of all, the streak, today's reviews, each theme's progress, and
   *  the download. */
  deckParts() {
    const d = this.ctrl.deck;
    if (!d) return [];
    if (!d.cards) return [h("span", { class: "deck-empty" }, t("deck.empty"))];
    const rows = d.themes.map((th) => h("tr", {}, h("th", { scope: "row" }, t(`puzzle.theme.${th.theme}`)),
      h("td", { class: "num" }, String(th.cards)), h("td", { class: "num" }, String(th.due)),
      h("td", { class: "num" }, th.reviews ? `${th.right}/${th.reviews}` : "—")));
    return [h("span", { class: "deck-counts", "data-due": d.due }, t("deck.counts", { due: d.due, cards: d.cards })), h("br"),
      h("span", { class: "small" }, t("deck.streak", { count: d.streak }), " · ", t("deck.today", { count: d.reviewed_today })),
      h("table", { class: "review-table deck-themes" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("puzzle.theme")), h("th", { scope: "col" }, t("deck.cards")),
          h("th", { scope: "col" }, t("deck.due")), h("th", { scope: "col" }, t("deck.right")))),
        h("tbody", {}, rows)),
      h("p", { class: "small" }, h("a", { href: "/api/deck/export.csv", download: "gammon-deck.csv" }, t("deck.export")), " · ",
        h("a", { href: "/api/deck/export.apkg", download: "gammon-deck.apkg" }, t("deck.export_anki")))];
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
      const later = c.deck?.next_due;
      if (c.exhausted && c.deckMode && later) parts.push(h("p", { class: "small" }, t("deck.next_due", { when: when(later) })));
      if (c.exhausted && c.theme) parts.push(h("button", { type: "button", onclick: () => c.next("") }, t("puzzle.any_theme")));
      return parts;
    }
    if (c.dailyDate) parts.push(h("p", { class: "small daily-date" }, t("puzzle.daily_of", { date: c.dailyDate })));
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
    const v = /** @type {import("../wire.js").PuzzleVerdictView | import("../wire.js").DeckReviewView} */ (c.verdict);
    const name = (answer) => (c.puzzle?.kind === "checker" ? answer : t(`puzzle.choice.${answer.replace(" ", "_")}`));
    const rows = v.top.map((a) => h("tr", { class: a.answer === v.answer ? "mine" : "" },
      h("th", { scope: "row" }, name(a.answer), a.answer === v.best ? " ✓" : ""), h("td", { class: "num" }, equity(a.equity))));
    const source = "source" in v ? v.source : null;
    return [
      h("p", { class: `verdict ${v.right ? "ok" : "bad"}`, "data-verdict": v.right ? "right" : "wrong" },
        v.right ? t("puzzle.right") : t("puzzle.wrong", { error: v.error.toFixed(3), best: name(v.best) })),
      h("p", { class: "small" }, t("puzzle.your_answer", { answer: name(v.answer) }), " · ", t("puzzle.graded_by", { grade: v.graded_by })),
      h("table", { class: "review-table" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("puzzle.answer")), h("th", { scope: "col" }, t("puzzle.equity")))),
        h("tbody", {}, rows)),
      "rating_change" in v
        ? h("p", { class: "rating-change" }, t("puzzle.rating_change", { before: Math.round(v.rating_change.before), after: Math.round(v.rating_change.after) }))
        : h("p", { class: "comes-back" }, t("deck.back_at", { when: when(v.due) })),
      source ? h("p", { class: "small" }, h("a", { href: `#/review/${source.match}` }, t("puzzle.source", { game: source.game, move: source.move_number }))) : null,
      h("button", { type: "button", class: "primary", "data-act": "next", onclick: () => c.next() }, c.deckMode ? t("deck.next") : t("puzzle.next")),
    ];
  }
}
