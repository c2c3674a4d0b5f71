// @ts-check
// pages/explorer.js — the position explorer (#/explorer): a position pasted (a Position ID,
// with its Match ID, or an XGID; empty for the start), the dice and the depth chosen, every
// play of the roll ranked by the engine with what each loses to the best and how often the
// site's players chose it (with its mean points for them), a play previewed on the board by a
// click on its row, and the best three rolled out on request with a progress
// bar and Cancel. The page draws its controller (pages/explorer/ctrl.js, no DOM).

import { BoardView, NS } from "../board.js";
import { t } from "../i18n.js";
import { diceValues } from "../movelist.js";
import { api } from "../net.js";
import { ExplorerCtrl } from "./explorer/ctrl.js";
import { Page, field, select } from "./page.js";
import { h } from "../ui.js";

/** @param {number} x */
const signed = (x) => (x >= 0 ? "+" : "") + x.toFixed(3);
const FACES = [1, 2, 3, 4, 5, 6].map((n) => [n, String(n)]);

/** How often the site's players chose a play, and its mean points for them.
 *  @param {import("../wire.js").ChoiceView | undefined} choice */
const site = (choice) => (choice ? t("explorer.site_cell", { times: choice.times, points: signed(choice.points) }) : "—");

export class ExplorerPage extends Page {
  /** @param {any} app */
  constructor(app) {
    super(app);
    /** @type {Set<ReturnType<typeof setTimeout>>} */
    this.pending = new Set();
    this.ctrl = new ExplorerCtrl({
      api, changed: () => this.draw(),
      later: (fn, ms) => {
        const id = setTimeout(() => { this.pending.delete(id); fn(); }, ms);
        this.pending.add(id);
        return () => { clearTimeout(id); this.pending.delete(id); };
      },
    });
    this.svg = /** @type {SVGSVGElement} */ (document.createElementNS(NS, "svg"));
    this.svg.setAttribute("aria-label", t("board.label"));
    this.view = new BoardView(this.svg, t);
    this.plays = h("div", { class: "explorer-plays", "aria-live": "polite" });
    this.rollout = h("div", { class: "stack explorer-rollout", "aria-live": "polite" });
    this.status = h("p", { class: "error-text", role: "alert" });
  }

  unmount() {
    super.unmount();
    this.ctrl.stop();
    for (const id of this.pending) clearTimeout(id);
  }

  mount(main) {
    const c = this.ctrl;
    const text = /** @type {HTMLInputElement} */ (h("input", { type: "text", name: "position", placeholder: t("explorer.paste"), "aria-label": t("explorer.paste") }));
    const form = h("form", { class: "row" }, text, h("button", { type: "submit", class: "primary" }, t("explorer.show")));
    form.addEventListener("submit", (e) => { e.preventDefault(); c.load(text.value); });
    const die1 = /** @type {HTMLSelectElement} */ (select("die1", FACES, c.dice[0]));
    const die2 = /** @type {HTMLSelectElement} */ (select("die2", FACES, c.dice[1]));
    const dice = () => c.setDice(Number(die1.value), Number(die2.value));
    die1.addEventListener("change", dice);
    die2.addEventListener("change", dice);
    this.die1 = die1;
    this.die2 = die2;
    const depth = /** @type {HTMLSelectElement} */ (select("plies", [[0, "0-ply"], [1, "1-ply"], [2, "2-ply"]], c.plies));
    depth.addEventListener("change", () => c.setPlies(Number(depth.value)));
    main.replaceChildren(h("h1", {}, t("explorer.title")),
      h("div", { class: "puzzles" },
        h("div", { class: "board-wrap" }, this.svg),
        h("section", { class: "card stack puzzle-side" }, form,
          h("div", { class: "row" }, field(t("explorer.dice"), h("span", { class: "row" }, die1, die2)), field(t("explorer.depth"), depth)),
          this.status, this.plays, this.rollout)));
    c.load("");
  }

  draw() {
    const c = this.ctrl;
    this.status.textContent = c.error;
    if (this.die1 && this.die2) { this.die1.value = String(c.dice[0]); this.die2.value = String(c.dice[1]); }
    const p = c.position;
    if (p) {
      const o = this.app.options;
      this.view.render({
        board: p.board, bottom: 0, flipped: !!o.flip, numbers: o.numbering !== false, quality: o.graphics,
        dice: { values: diceValues(c.dice, true), left: [], seat: 0 }, roll: false, turn: 0,
        last: c.preview, cube: null,
        players: [t("puzzle.you"), t("puzzle.opponent")].map((name) => ({ name, rating: null, score: null, clock: null })),
        match: { length: 0, crawford: false, label: "" }, highlight: {},
        compact: this.svg.clientWidth > 0 && this.svg.clientWidth < 620,
      });
    }
    this.drawPlays();
    this.drawRollout();
  }

  drawPlays() {
    const c = this.ctrl;
    if (c.busy && !c.plays.length) { this.plays.replaceChildren(h("p", { class: "muted" }, t("common.loading"))); return; }
    const rows = c.plays.slice(0, 12).map((play, i) => h("tr", { class: i === c.selected ? "mine" : "", "data-play": play.play },
      h("th", { scope: "row" }, h("button", { type: "button", class: "rv-play", "aria-pressed": String(i === c.selected), onclick: () => c.select(i) }, play.play || t("moves.cannot_move"))),
      h("td", { class: "num" }, signed(play.equity)), h("td", { class: "num muted" }, i ? signed(-c.behind(play)) : ""),
      h("td", { class: "num site" }, site(c.choices.get(play.play)))));
    this.plays.replaceChildren(h("table", { class: "review-table" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("explorer.play")), h("th", { scope: "col" }, t("puzzle.equity")), h("th", { scope: "col" }, t("explorer.behind")),
        h("th", { scope: "col", title: t("explorer.site_title") }, t("explorer.site")))),
      h("tbody", {}, rows)),
    c.plays.length > 12 ? h("p", { class: "muted small" }, t("explorer.more", { count: c.plays.length - 12 })) : null);
  }

  drawRollout() {
    const c = this.ctrl;
    const r = c.rollout;
    const button = c.running
      ? h("button", { type: "button", "data-act": "cancel", onclick: () => c.cancel() }, t("explorer.cancel"))
      : h("button", { type: "button", class: "primary", "data-act": "rollout", disabled: !c.plays.length || c.busy, onclick: () => c.rollOut() }, t("explorer.roll_out"));
    const parts = [button];
    if (r) {
      parts.push(h("p", { class: "small", "data-status": r.status },
        t(`explorer.status_${r.status}`, { done: r.games_done, games: r.games }),
        c.running ? h("progress", { max: 1, value: c.progress }) : null));
      parts.push(h("table", { class: "review-table explorer-rolled" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("explorer.play")), h("th", { scope: "col" }, t("puzzle.equity")), h("th", { scope: "col" }, t("explorer.games")))),
        h("tbody", {}, r.plays.map((p) => h("tr", { "data-play": p.play }, h("th", { scope: "row" }, p.play),
          h("td", { class: "num" }, p.equity === null ? "—" : `${signed(p.equity)} ± ${(p.standard_error ?? 0).toFixed(3)}`),
          h("td", { class: "num" }, String(p.games)))))));
    }
    this.rollout.replaceChildren(...parts);
  }
}
