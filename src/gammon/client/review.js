// @ts-check
// review.js — the post-match review (#/review/ID): the match replayed with the engine's
// analysis of every decision.
//
// The analysis is the server's (`GET /api/games/{id}/analysis`, the JSON of `gammon analyze
// --format json`; 202 with its progress while it is made); the frames and the board are the
// replay's (replay.js, board.js), the move list movelist.js's. This module only lays the
// analysis over them: which frame each rated decision belongs to, the summary, the
// win-chance graph; the panel of the decision shown is review/decision.js's.

import { NS } from "./board.js";
import { t } from "./i18n.js";
import { api } from "./net.js";
import { diceText, moveRows, renderMoveList } from "./movelist.js";
import { frameAt, matchFrames } from "./replay.js";
import { DecisionPanel, MARK_CLASS, percent, signed } from "./review/decision.js";
import { FrameStepper } from "./stepper.js";
import { h, kindText } from "./ui.js";

/** GNU Backgammon's rating scale on the error rate (millipoints lost per unforced
 *  decision): the upper bound of each word, best first; above the last, "awful". */
export const RATINGS = [
  [2, "supernatural"], [5, "world_class"], [8, "expert"], [12, "advanced"],
  [18, "intermediate"], [26, "casual"], [35, "beginner"],
];

export function ratingWord(errorRate) {
  for (const [bound, word] of RATINGS) if (errorRate < bound) return word;
  return "awful";
}


/** The cube event that a cube decision of the analysis is: the offer, the answer, or the
 *  roll made without doubling. */
function isCubeEvent(c, e) {
  const type = { "no double": "dice_rolled", double: "cube_offered", take: "cube_taken", drop: "cube_dropped", beaver: "cube_beavered" }[c.chosen];
  return e.type === type && e.player === c.player;
}

/** For each frame, the decisions rated there: {checker, cube} (null where none). A checker
 *  play is the k-th turn of a game that moved checkers (the analysis numbers plays, not
 *  turns without a move); a cube decision the next matching cube event after the plays it
 *  follows. */
export function decisionsByFrame(frames, analysis) {
  const plays = new Map(analysis.decisions.map((d) => [`${d.game}/${d.move_number}`, d]));
  const cubes = analysis.cube_decisions;
  let game = 0;
  let move = 0;
  let next = 0; // the next cube decision to place
  return frames.map((f) => {
    const e = f.event;
    const here = { checker: null, cube: null };
    if (e.type === "game_started") { game += 1; move = 0; }
    if (e.type === "turn_ended" && e.moves.length) {
      move += 1;
      here.checker = plays.get(`${game}/${move}`) ?? null;
    }
    const c = cubes[next];
    if (c && c.game === game && c.move_number === move && isCubeEvent(c, e)) {
      here.cube = c;
      next += 1;
    }
    return here;
  });
}

export class ReviewPage {
  /** `arg`: ID, optionally with ?key=KEY (a private match's invite key). */
  constructor(app, arg) {
    this.app = app;
    const [id, key] = arg.split("?key=");
    this.id = id.split("/")[0];
    this.key = key || null;
    this.query = this.key ? `?key=${encodeURIComponent(this.key)}` : "";
    this.rated = [];
    this.analysis = null;
    this.timer = null;
    this.closed = false;
    this.waiting = false; // refused as not finished: asked again when the match ends
    this.errorsOf = null; // "Next error" walks the errors of this seat only (null: both)
    this.numbers = new Map(); // the move list's number of each turn, by its event's version
    this.deeper = null; // the depth of a deeper analysis on its way (Gammon-Deeper-Analysis)
    this.deeperTimer = null;
    /** @type {Map<number, number>} the graph's x of each frame with a rated play */
    this.pointAt = new Map();
    /** @type {import("./wire.js").InfoView} the match's info, read before anything is drawn */
    this.info;
    /** @type {FrameStepper} the board that steps through the frames (when mounted) */
    this.stepper;
    /** @type {DecisionPanel} the decision shown (when mounted) */
    this.panel;
    /** @type {(event: KeyboardEvent) => void} */
    this.keys;
  }

  mount(main) {
    this.moveList = h("div", { class: "movelist", role: "list", "aria-label": t("match.log"), tabindex: 0 });
    const stepper = new FrameStepper({ options: () => this.app.options, moveList: this.moveList, onShow: () => this.showDecision() });
    this.stepper = stepper;
    this.title = h("h1", {}, t("review.title"));
    this.status = h("div", { class: "review-status", role: "status", "aria-live": "polite" }, t("common.loading"));
    this.summary = h("div", { class: "review-summary" });
    this.graph = h("div", { class: "review-graph" });
    this.graphTitle = h("h2", {}, t("review.graph"));
    this.panel = new DecisionPanel(this);
    const text = (label, fn, act) => h("button", { type: "button", "data-act": act, onclick: fn }, label);
    this.filter = h("select", { "data-act": "error-filter", onchange: () => { this.errorsOf = this.filter.value === "" ? null : Number(this.filter.value); } });
    // the graded decision beside the board on a wide screen (the side column's top), right
    // below it on a narrow one: in view with the board either way
    main.replaceChildren(this.title, this.status,
      h("div", { class: "review" },
        h("div", { class: "replay-main" },
          ...stepper.elements,
          h("div", { class: "row rv-errors", style: "justify-content:center" },
            text(t("review.prev_error"), () => this.seekError(-1), "prev-error"),
            text(t("review.next_error"), () => this.seekError(1), "next-error"),
            h("label", { class: "field inline" }, h("span", { class: "muted small" }, t("review.errors_of")), this.filter),
            text(t("match.switch_side"), () => { stepper.bottom = 1 - stepper.bottom; this.show(this.index); }, "side"),
            h("a", { class: "button", href: `#/replay/${this.id}${this.query}` }, t("history.replay")))),
        h("div", { class: "review-side" },
          this.panel.el,
          h("section", { class: "card" }, h("h2", {}, t("review.summary")), this.summary),
          h("section", { class: "card" }, this.graphTitle, this.graph),
          h("section", { class: "card" }, h("h2", {}, t("match.log")), this.moveList))));
    // Up and Down step through the engine's plays of the decision shown, on the board
    this.keys = stepper.keys({ ArrowDown: () => this.panel.stepPlay(1), ArrowUp: () => this.panel.stepPlay(-1) });
    document.addEventListener("keydown", this.keys);
    // the match's events (every one, from version 0), and the analysis's progress messages
    this.feed = this.app.socket.feed(this.id, 0, this.key);
    this.onState = () => {
      // a match reviewed while in play has ended: its info (the result) came with the end,
      // and its analysis can be asked for now (the server may also announce it: the
      // analysis messages below)
      const ended = this.waiting && this.ended();
      if (ended) {
        this.waiting = false;
        this.info = this.feed.info ?? this.info;
      }
      this.load();
      if (ended) this.fetchAnalysis();
    };
    this.feed.addEventListener("state", this.onState);
    this.onMessage = (e) => {
      const m = e.detail;
      if (m.type !== "analysis" || m.match !== this.id) return;
      if (!this.analysis) {
        this.progress(m);
        if (m.status === "done" || m.status === "failed") this.fetchAnalysis();
      } else if (m.plies === this.deeper) {
        this.showStatus(m);
        if (m.status === "done" || m.status === "failed") this.fetchDeeper();
      }
    };
    this.app.socket.addEventListener("message", this.onMessage);
    api("GET", `/api/games/${this.id}${this.query}`).then((state) => {
      this.info = state.info;
      this.load();
      this.fetchAnalysis();
    }).catch((err) => this.fail(err));
  }

  unmount() {
    this.closed = true;
    clearTimeout(this.timer ?? undefined);
    clearTimeout(this.deeperTimer ?? undefined);
    document.removeEventListener("keydown", this.keys);
    this.app.socket.removeEventListener("message", this.onMessage);
    this.feed?.removeEventListener("state", this.onState);
    this.app.socket.drop(this.id);
  }

  fail(err) {
    const text = err.status === 404 ? t("replay.not_found")
      : err.code === "not_finished" ? t("review.not_finished")
        : err.code === "analysis_failed" ? t("review.failed", { message: err.message })
          : err.message;
    this.status.replaceChildren(h("p", { class: "error-text", "data-error": err.code || err.status }, text));
  }

  /** Ask for the analysis; while it is made (202), show its progress and ask again. */
  async fetchAnalysis() {
    clearTimeout(this.timer ?? undefined);
    if (this.closed || this.analysis) return;
    let wait = 2000;
    try {
      const response = await fetch(`/api/games/${this.id}/analysis${this.query}`, { credentials: "same-origin" });
      const data = await response.json().catch(() => null);
      if (this.closed || this.analysis) return;
      if (response.status === 200) {
        const deeper = Number(response.headers.get("gammon-deeper-analysis"));
        this.deeper = deeper > data.plies ? deeper : null;
        this.setAnalysis(data);
        if (this.deeper !== null) this.fetchDeeper();
        return;
      }
      if (response.status === 202) this.progress(data);
      else {
        const detail = data?.detail || {};
        this.fail({ status: response.status, code: detail.code, message: detail.message || `HTTP ${response.status}` });
        if (detail.code === "not_finished") {
          // still in play: the feed tells the end (it may already have)
          this.waiting = !this.ended();
          if (this.waiting) return;
          wait = 0;
        } else if (response.status !== 503) return;
        else wait = 30_000;
      }
    } catch (err) {
      this.status.replaceChildren(h("p", { class: "error-text" }, err.message));
    }
    this.timer = setTimeout(() => this.fetchAnalysis(), wait);
  }

  /** Show an analysis (the quick one, or the deeper one that replaces it), staying on the
   *  same frame. */
  setAnalysis(data) {
    this.analysis = data;
    this.showStatus(null);
    this.load();
  }

  /** The depth that graded the page, and the deeper analysis's progress while it comes. */
  showStatus(deep) {
    const a = this.analysis;
    const rechecked = a.decisions.some((d) => d.graded_by?.startsWith("rollout"));
    const parts = [h("span", { "data-field": "plies" }, t("review.plies", { count: a.plies })),
      rechecked ? h("span", {}, " ", t("review.rechecked")) : null];
    if (this.deeper !== null && deep?.status !== "failed") {
      const running = deep?.status === "running" && deep.total > 0;
      parts.push(h("span", { "data-deeper": running ? "running" : "queued" }, " ",
        running ? t("review.deeper_running", { count: this.deeper, done: deep.done, total: deep.total })
          : t("review.deeper_queued", { count: this.deeper })));
    }
    this.status.replaceChildren(h("p", { class: "muted small", "data-status": "done", "data-plies": a.plies }, ...parts));
  }

  /** Ask for the deeper analysis until it is done (or the page is left); then show it. */
  async fetchDeeper() {
    clearTimeout(this.deeperTimer ?? undefined);
    const plies = this.deeper;
    if (this.closed || plies === null) return;
    let wait = 3000;
    try {
      const response = await fetch(`/api/games/${this.id}/analysis?ply=${plies}${this.key ? `&key=${encodeURIComponent(this.key)}` : ""}`, { credentials: "same-origin" });
      const data = await response.json().catch(() => null);
      if (this.closed || this.deeper !== plies) return;
      if (response.status === 200) {
        this.deeper = null;
        this.setAnalysis(data);
        return;
      }
      if (response.status === 202) this.showStatus(data);
      else if (response.status !== 503) { this.deeper = null; this.showStatus(null); return; }
      else wait = 30_000;
    } catch {
      // asked again below
    }
    this.deeperTimer = setTimeout(() => this.fetchDeeper(), wait);
  }

  /** Whether the match's feed has brought its end. */
  ended() {
    return this.feed.events.some((e) => e.type === "match_ended");
  }

  /** The analysis's progress while it is made; once made ("done"), "loading" until it has
   *  been fetched and shown (showStatus then says "done"). */
  progress(p) {
    if (p.status === "done") {
      this.status.replaceChildren(h("p", { "data-status": "loading" }, t("common.loading")));
      return;
    }
    const running = p.status === "running" && p.total > 0;
    this.status.replaceChildren(h("p", { "data-status": p.status },
      running ? t("review.running", { done: p.done, total: p.total }) : t("review.queued"), " ",
      h("progress", { max: running ? p.total : null, value: running ? p.done : null, "aria-hidden": "true" })));
  }

  load() {
    if (!this.info) return;
    const info = this.info;
    this.title.textContent = `${t("review.title")}: ${info.seats.map((s) => s?.name ?? "…").join(" – ")} · ${kindText(info)}`;
    const name = (seat) => info.seats[seat]?.name ?? "?";
    const events = this.feed.events;
    this.stepper.setFrames(matchFrames(events, info), info);
    this.rated = this.analysis ? decisionsByFrame(this.frames, this.analysis) : this.frames.map(() => ({ checker: null, cube: null }));
    const rows = moveRows(events, name, info.winner_rolls_anew ?? null);
    // one numbering: a decision is called by its number in the move list ("5)")
    this.numbers = new Map();
    for (const r of rows) if (r.kind === "moves") for (const c of r.cells ?? []) if (c) this.numbers.set(c.v, r.number);
    this.fillFilter(name);
    renderMoveList(this.moveList, rows, {
      href: (v) => `#/replay/${this.id}/${v}${this.query}`,
      onPick: (v) => this.jump(v),
    });
    this.renderSummary();
    this.renderGraph();
    this.markMoves();
    if (!this.frames.length) { this.stepper.caption.textContent = t("replay.empty"); return; }
    this.show(this.index);
  }

  /** The choices of "Next error": both players, or one (the viewer's own: "mine only"). */
  fillFilter(name) {
    const me = this.app.me?.id;
    const mine = this.info.seats.findIndex((s) => s && me !== undefined && s.id === me);
    const options = [h("option", { value: "" }, t("review.errors_both"))];
    for (const seat of [0, 1]) {
      options.push(h("option", { value: String(seat), "data-mine": seat === mine ? "" : null },
        seat === mine ? t("review.errors_mine") : t("review.errors_player", { name: name(seat) })));
    }
    this.filter.replaceChildren(...options);
    this.filter.value = this.errorsOf === null ? "" : String(this.errorsOf);
  }

  /** The ?/?? of the analysis beside the moves and cube actions of the move list. */
  markMoves() {
    this.rated.forEach((r, i) => {
      for (const d of [r.checker, r.cube]) {
        if (!d?.mark) continue;
        const v = this.frames[i].event.v;
        // a play is its cell; a cube action the cube line that holds it (the line carries
        // the version of its last action); a roll without doubling has no line
        const cell = d === r.checker ? this.moveList.querySelector(`.ml-cell[data-v="${v}"]`)
          : d.chosen === "no double" ? null
            : [...this.moveList.querySelectorAll(".ml-cube[data-v]")].find((row) => Number(row.dataset.v) >= v);
        cell?.append(h("span", { class: `rv-mark ${MARK_CLASS[d.mark]}`, title: t(`review.${MARK_CLASS[d.mark]}`) }, d.mark));
      }
    });
  }

  renderSummary() {
    const a = this.analysis;
    if (!a) { this.summary.replaceChildren(h("p", { class: "muted" }, t("review.waiting"))); return; }
    // one column a player, one row a figure: narrow enough for a phone
    /** @type {[string, string, (p: import("./wire.js").AnalysisPlayerView) => string][]} */
    const figures = [
      ["error_rate_mp", "review.error_rate", (p) => p.error_rate_mp.toFixed(1)],
      ["performance_rating", "review.pr", (p) => p.performance_rating.toFixed(1)],
      ["errors", "review.errors", (p) => String(p.errors)],
      ["blunders", "review.blunders", (p) => String(p.blunders)],
      ["luck", "review.luck", (p) => signed(p.luck)],
      ["rating", "review.rating", (p) => t(`review.rating_${ratingWord(p.error_rate_mp)}`)],
    ];
    this.summary.replaceChildren(h("table", { class: "review-table" },
      h("thead", {}, h("tr", {}, h("th", {}, h("span", { class: "sr-only" }, t("review.player"))),
        a.players.map((p) => h("th", { scope: "col" }, this.info.seats[p.player]?.name ?? p.name)))),
      h("tbody", {}, figures.map(([stat, label, text]) => h("tr", {},
        h("th", { scope: "row" }, t(label)),
        a.players.map((p) => h("td", { "data-player": p.player, "data-stat": stat }, text(p))))))),
      h("p", { class: "muted small" }, t("review.legend")));
  }

  /** Player 0's chance of winning after each checker play, as the engine sees it: the
   *  match's in a match (`match_winning_chance`), else the game's; a point is a link to
   *  that play. */
  renderGraph() {
    const points = [];
    this.rated.forEach((r, i) => { if (r.checker) points.push({ d: r.checker, frame: i }); });
    const inMatch = points.some((p) => p.d.match_winning_chance != null);
    this.graphTitle.textContent = t(inMatch ? "review.graph_match" : "review.graph");
    if (!points.length) { this.graph.replaceChildren(h("p", { class: "muted" }, this.analysis ? t("review.no_plays") : t("review.waiting"))); return; }
    const [W, H, pad] = [600, 180, 8];
    const x = (i) => pad + (points.length === 1 ? (W - 2 * pad) / 2 : (i * (W - 2 * pad)) / (points.length - 1));
    const y = (p) => pad + (1 - p) * (H - 2 * pad);
    const el = (tag, attrs) => {
      const node = document.createElementNS(NS, tag);
      for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
      return node;
    };
    const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "wc-graph", role: "img",
      "aria-label": t(inMatch ? "review.graph_match_label" : "review.graph_label", { name: this.info.seats[0]?.name ?? "?" }),
      "data-of": inMatch ? "match" : "game" });
    svg.append(el("rect", { x: 0, y: 0, width: W, height: H, class: "wc-bg" }),
      el("line", { x1: 0, x2: W, y1: y(0.5), y2: y(0.5), class: "wc-half" }));
    points.forEach((p, i) => {
      if (i && p.d.game !== points[i - 1].d.game) {
        const gx = (x(i - 1) + x(i)) / 2;
        svg.append(el("line", { x1: gx, x2: gx, y1: 0, y2: H, class: "wc-game" }));
      }
    });
    const own = (d) => (inMatch ? d.match_winning_chance : d.win_chance);
    const chance = (d) => (d.player === 0 ? own(d) : 1 - own(d));
    svg.append(el("polyline", { class: "wc-line", points: points.map((p, i) => `${x(i).toFixed(1)},${y(chance(p.d)).toFixed(1)}`).join(" ") }));
    this.cursor = el("line", { x1: 0, x2: 0, y1: 0, y2: H, class: "wc-cursor", visibility: "hidden" });
    svg.append(this.cursor);
    this.pointAt = new Map();
    points.forEach((p, i) => {
      const c = el("circle", { cx: x(i).toFixed(1), cy: y(chance(p.d)).toFixed(1), r: p.d.mark ? 5 : 3.5,
        class: `wc-point ${MARK_CLASS[p.d.mark] || ""}`, "data-frame": p.frame, "data-game": p.d.game, "data-move": p.d.move_number });
      const title = el("title", {});
      title.textContent = `${this.moveLabel(p.d, p.frame)}: ${percent(chance(p.d))}`;
      c.append(title);
      svg.append(c);
      this.pointAt.set(p.frame, x(i));
    });
    // a click anywhere on the graph goes to the nearest play
    svg.addEventListener("click", (e) => {
      const box = svg.getBoundingClientRect();
      const at = ((e.clientX - box.left) / box.width) * W;
      let best = points[0];
      let gap = Infinity;
      points.forEach((p, i) => { if (Math.abs(x(i) - at) < gap) { gap = Math.abs(x(i) - at); best = p; } });
      this.show(best.frame);
    });
    // the top is player 0 sure to win, the bottom player 1
    this.graph.replaceChildren(h("div", { class: "wc-axis muted small" }, `▲ ${this.info.seats[0]?.name ?? "?"}`), svg,
      h("div", { class: "wc-axis muted small" }, `▼ ${this.info.seats[1]?.name ?? "?"}`));
  }

  /** "Game 1, move 5: Alice 63": the move's number is the move list's (a numbered pair of
   *  turns), not the analysis's count of plays. */
  moveLabel(d, frame) {
    const dice = diceText([...d.roll].map(Number)); // higher first, as everywhere
    const number = this.numbers.get(this.frames[frame]?.event.v) ?? d.move_number;
    return t("review.move", { game: d.game, number, name: this.info.seats[d.player]?.name ?? "?", dice });
  }

  /** Show the position after the event of version `v` (a move clicked in the list). */
  jump(v) {
    this.show(frameAt(this.frames, v));
  }

  /** Go to the previous (-1) or next (+1) frame with an error or a blunder (of the player
   *  the filter names, when it names one), and bring its panel into view. */
  seekError(step) {
    const counts = (d) => d?.mark && (this.errorsOf === null || d.player === this.errorsOf);
    for (let i = this.index + step; i >= 0 && i < this.frames.length; i += step) {
      const r = this.rated[i];
      if (r && (counts(r.checker) || counts(r.cube))) {
        this.show(i);
        this.panel.el.scrollIntoView?.({ block: "nearest" });
        return;
      }
    }
  }

  /** The frames, the one shown and the board: the stepper's. */
  get frames() { return this.stepper.frames; }
  get index() { return this.stepper.index; }
  get view() { return this.stepper.view; }

  show(i) {
    this.stepper.show(i);
  }

  /** The frame shown moved: the graph's cursor and the decision panel follow. */
  showDecision() {
    if (this.cursor) {
      const gx = this.pointAt.get(this.index);
      this.cursor.setAttribute("visibility", gx === undefined ? "hidden" : "visible");
      if (gx !== undefined) { this.cursor.setAttribute("x1", String(gx)); this.cursor.setAttribute("x2", String(gx)); }
      for (const c of this.graph.querySelectorAll(".wc-point")) c.classList.toggle("current", Number(c.dataset.frame) === this.index);
    }
    this.panel.render(this.rated[this.index] || { checker: null, cube: null });
  }
}
