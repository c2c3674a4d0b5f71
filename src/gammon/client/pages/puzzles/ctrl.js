// @ts-check
// pages/puzzles/ctrl.js — the puzzle page's controller, no DOM (as the lobby's
// pages/lobby/ctrl.js): the puzzle asked (the next one near the player's puzzle rating, of a
// theme if chosen, or one by its id), the roll played on its board step by step (each step
// answered by the server, as a roll in a match: the rules stay the server's), the cube
// question's choices, the verdict with the engine's answers and both ratings moved. The same
// controller works through the player's own deck of mistakes (`deck: true`): the most overdue
// card instead, its review scheduled again, the deck's counts and streak. The page
// (pages/puzzles.js) draws it when it says what changed.

import { t } from "../../i18n.js";
import { asking } from "../asking.js";

/** @typedef {import("../../round/types.js").Api} Api */
/** @typedef {import("../../wire.js").PuzzleView} PuzzleView */
/** @typedef {import("../../wire.js").PuzzleRatingView} PuzzleRatingView */
/** @typedef {import("../../wire.js").PuzzleStepsView} PuzzleStepsView */
/** @typedef {import("../../wire.js").PuzzleVerdictView} PuzzleVerdictView */
/** @typedef {import("../../wire.js").DeckView} DeckView */
/** @typedef {import("../../wire.js").DeckReviewView} DeckReviewView */
/** A step of the roll: the checker on `from` (25 the bar) moved by `die`.
 *  @typedef {{from: number, die: number}} Step */

/** The themes a puzzle may have (gammon.engine.puzzles.THEMES), in the order offered. */
export const THEMES = ["opening", "race", "bear-off", "back-game", "holding", "priming", "blitz",
  "cube-action", "take-point", "dmp", "crawford", "gammon-go", "gammon-save"];

/** What the controller needs of the page around it: the server, and a redraw.
 *  @typedef {{api: Api, changed: () => void}} PuzzleDeps */

export class PuzzleCtrl {
  /** @param {string | undefined} id the puzzle the route names (#/puzzles/ID), else the next
   *  one @param {PuzzleDeps} deps @param {{deck?: boolean}} [how] `deck`: the player's own
   *  deck's cards, not the pool's puzzles */
  constructor(id, deps, { deck = false } = {}) {
    this.id = id || "";
    this.deps = deps;
    this.deckMode = deck;
    /** @type {DeckView | null} the deck (deck mode) */ this.deck = null;
    /** @type {PuzzleView | null} */ this.puzzle = null;
    /** @type {PuzzleRatingView | null} the player's puzzle rating (with the next puzzle) */
    this.rating = null;
    /** @type {string} the theme asked ("" any) */ this.theme = "";
    /** @type {Step[]} the roll's steps played so far */ this.steps = [];
    /** @type {PuzzleStepsView | null} the board after them, and what may move next */
    this.moves = null;
    /** @type {number | null} the checker picked (its targets lit) */ this.selected = null;
    /** @type {PuzzleVerdictView | DeckReviewView | null} */ this.verdict = null;
    /** @type {string} what went wrong, in the player's language ("" nothing) */ this.error = "";
    /** @type {boolean} nothing left to ask (of the theme) */ this.exhausted = false;
    /** @type {string} the day of the puzzle shown when it is the puzzle of the day */
    this.dailyDate = "";
    this.busy = false;
  }

  /** The page is shown: the route's puzzle, or the next one (the deck read first: it is
   *  shown even when no card is due). */
  async start() {
    if (this.deckMode) {
      try {
        this.deck = await this.deps.api("GET", "/api/deck");
      } catch (err) {
        this.error = refusal(err);
      }
    }
    if (this.id === "daily" && !this.deckMode) return this.daily();
    return this.id && !this.deckMode ? this.open(this.id) : this.next();
  }

  /** The puzzle of the day (the same for everybody all day). */
  async daily() {
    await this.ask(async () => {
      const found = await this.deps.api("GET", "/api/puzzles/daily");
      this.rating = found.rating;
      this.dailyDate = found.date;
      return found.puzzle;
    });
  }

  /** The next puzzle near the player's rating, or the deck's most overdue card (of `theme`,
   *  "" any). @param {string} [theme] */
  async next(theme = this.theme) {
    this.theme = theme;
    const query = theme ? `?theme=${encodeURIComponent(theme)}` : "";
    await this.ask(async () => {
      if (this.deckMode) {
        const card = await this.deps.api("GET", `/api/deck/next${query}`);
        this.deck = card.deck;
        return card.puzzle;
      }
      const found = await this.deps.api("GET", `/api/puzzles/next${query}`);
      this.rating = found.rating;
      return found.puzzle;
    });
  }

  /** The puzzle `id` (a link to it). @param {string} id */
  async open(id) {
    await this.ask(() => this.deps.api("GET", `/api/puzzles/${encodeURIComponent(id)}`));
  }

  /** Ask for a puzzle: the board and the answer start afresh. @param {() => Promise<PuzzleView>} get */
  async ask(get) {
    this.busy = true;
    this.error = "";
    this.exhausted = false;
    this.deps.changed();
    try {
      this.dailyDate = "";
      this.puzzle = await get();
      this.id = String(this.puzzle.id);
      this.steps = [];
      this.moves = null;
      this.selected = null;
      this.verdict = null;
      if (this.puzzle.kind === "checker") this.moves = await this.stepsAnswer([]);
    } catch (err) {
      this.puzzle = null;
      this.exhausted = err.code === "no_puzzle" || err.code === "nothing_due";
      this.error = refusal(err);
    } finally {
      this.busy = false;
      this.deps.changed();
    }
  }

  /** The board drawn: after the steps played, else the puzzle's. */
  get board() {
    return this.moves?.board || this.puzzle?.board || null;
  }

  /** Whether the roll may still be moved on the board. */
  get moving() {
    return !!this.puzzle && this.puzzle.kind === "checker" && !this.verdict && !this.busy && !!this.moves;
  }

  /** The checkers that may move now (their points). */
  get sources() {
    return this.moving && this.moves ? Object.keys(this.moves.legal).map(Number) : [];
  }

  /** Where the checker on `src` can go with the dice left, and the dice of the way there.
   *  @param {number} src @returns {Map<number, number[]>} */
  reachOf(src) {
    /** @type {Map<number, number[]>} */
    const out = new Map();
    if (!this.moving || !this.moves) return out;
    for (const [dest, dice] of Object.entries(this.moves.reach[String(src)] || {})) out.set(Number(dest), dice);
    return out;
  }

  /** The play made once the roll is played whole (null until then). */
  get play() {
    return this.verdict ? null : this.moves?.play ?? null;
  }

  /** A click or tap on the board's `slot` (1-24 the points, 25 the bar, 0 the tray): a lit
   *  target takes the picked checker there, a checker that can move is picked (again: the
   *  pick is dropped), anything else drops the pick. @param {number | null} slot */
  async click(slot) {
    if (!this.moving) return;
    const picked = this.selected;
    if (picked !== null && slot !== null && this.reachOf(picked).has(slot)) {
      this.selected = null;
      await this.move(picked, /** @type {number[]} */ (this.reachOf(picked).get(slot)));
      return;
    }
    this.selected = slot !== null && slot !== picked && this.sources.includes(slot) ? slot : null;
    this.deps.changed();
  }

  /** Move the checker on `src` by `dice` in turn (each step from where the last ended).
   *  @param {number} src @param {number[]} dice */
  async move(src, dice) {
    /** @type {Step[]} */
    const steps = [];
    let from = src;
    for (const die of dice) {
      steps.push({ from, die });
      from -= die;
    }
    await this.replay([...this.steps, ...steps]);
  }

  /** Take back the last step. */
  async undo() {
    if (!this.moving || !this.steps.length) return;
    this.selected = null;
    await this.replay(this.steps.slice(0, -1));
  }

  /** The board after `steps`, asked of the server; refused, the board stays as it was.
   *  @param {Step[]} steps */
  replay(steps) {
    return this.work(async () => {
      this.moves = await this.stepsAnswer(steps);
      this.steps = steps;
    });
  }

  /** Ask the server (`fn`), busy meanwhile; a refusal is said in the player's language.
   *  @param {() => Promise<void>} fn */
  work(fn) {
    return asking(this, fn, refusal);
  }


  /** The server's board after `steps`. @param {Step[]} steps @returns {Promise<PuzzleStepsView>} */
  stepsAnswer(steps) {
    return this.deps.api("POST", `/api/puzzles/${this.id}/steps`, { steps });
  }

  /** Send the play made on the board as the answer. */
  submit() {
    const play = this.play;
    return play === null ? Promise.resolve() : this.answer({ play });
  }

  /** Answer a cube question. @param {string} choice */
  choose(choice) {
    if (!this.puzzle || this.puzzle.kind === "checker" || this.verdict) return Promise.resolve();
    return this.answer({ cube: choice });
  }

  /** @param {{play: string} | {cube: string}} body */
  async answer(body) {
    if (this.busy || !this.puzzle) return;
    await this.work(async () => {
      if (this.deckMode) {
        const review = await this.deps.api("POST", `/api/deck/${this.id}/review`, body);
        this.verdict = review;
        this.deck = review.deck;
      } else {
        const verdict = await this.deps.api("POST", `/api/puzzles/${this.id}/answer`, body);
        this.verdict = verdict;
        this.rating = verdict.rating;
      }
      this.selected = null;
    });
  }


  /** The question in the player's words: what to play, or the cube's question. */
  get question() {
    const p = this.puzzle;
    if (!p) return "";
    if (p.kind === "checker") return t("puzzle.ask_play", { dice: (p.dice || []).join("-") });
    return p.kind === "double" ? t("puzzle.ask_double") : t("puzzle.ask_take");
  }

  /** Where the decision was: money, or the match's length and score (the player's first). */
  get context() {
    const c = this.puzzle?.context;
    if (!c) return "";
    const cube = c.cube > 1 || c.cube_owner !== "centred"
      ? t(`puzzle.cube_${c.cube_owner}`, { value: c.cube }) : "";
    const where = c.length ? t("puzzle.match", { count: c.length, you: c.length - c.score[0], them: c.length - c.score[1] })
      : t("puzzle.money");
    return [where, c.crawford ? t("puzzle.crawford") : "", cube].filter(Boolean).join(" · ");
  }
}

/** A refusal in the player's language where its reason is known, else the server's words.
 *  @param {any} err */
export function refusal(err) {
  if (err.code === "no_puzzle") return t("puzzle.none_left");
  if (err.code === "nothing_due") return t("deck.nothing_due");
  if (err.code === "not_found") return t("puzzle.not_found");
  if (err.code === "already_answered") return t("puzzle.already_answered");
  if (err.code === "rate_limited") return t("puzzle.slow_down");
  return err.message || String(err);
}
