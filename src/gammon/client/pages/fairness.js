// @ts-check
// pages/fairness.js — dice statistics and a match's dice checked in the browser
// (#/fairness[/ID]). The page draws its controller (pages/fairness/ctrl.js: the
// statistics, the check and its verdict, no DOM) and turns the form into its check.

import { t } from "../i18n.js";
import { api } from "../net.js";
import { FairnessCtrl } from "./fairness/ctrl.js";
import { Page } from "./page.js";
import { h } from "../ui.js";

export class FairnessPage extends Page {
  /** @param {any} app @param {string} id */
  constructor(app, id) {
    super(app);
    this.ctrl = new FairnessCtrl(id, { api, changed: (part) => (part === "stats" ? this.showStats() : this.showCheck()) });
  }

  mount(main) {
    this.stats = h("div", {}, h("p", { class: "muted" }, t("common.loading")));
    this.result = h("div", { "aria-live": "polite" });
    const input = /** @type {HTMLInputElement} */ (h("input", { type: "text", name: "match", value: this.ctrl.id, "aria-label": t("fairness.match_id"), placeholder: t("fairness.match_id") }));
    const form = h("form", { class: "row" }, input, h("button", { type: "submit", class: "primary" }, t("fairness.check")));
    form.addEventListener("submit", (e) => { e.preventDefault(); this.ctrl.check(input.value); });
    main.replaceChildren(h("h1", {}, t("fairness.title")),
      h("div", { class: "grid" },
        h("section", { class: "card stack" }, h("h2", {}, t("fairness.check_title")), h("p", { class: "muted small" }, t("fairness.explain")), form, this.result),
        h("section", { class: "card" }, h("h2", {}, t("fairness.stats_title")), this.stats)));
    this.ctrl.start();
  }

  /** The faces' bars beside a fair die's count, and the chi-squared's verdict. */
  showStats() {
    const box = this.stats;
    if (this.ctrl.statsError) { box.replaceChildren(h("p", { class: "error-text" }, this.ctrl.statsError)); return; }
    const s = this.ctrl.summary;
    if (!s) { box.replaceChildren(h("p", { class: "empty" }, t("fairness.no_dice"))); return; }
    const bars = h("div", { class: "bars", role: "table", "aria-label": t("fairness.faces") });
    for (const f of s.faces) {
      const track = h("div", { class: "bar-track", role: "cell" }, h("div", { class: "bar-fill", style: `width:${f.width}%` }),
        h("div", { class: "bar-expected", style: `left:${s.expectedAt}%`, title: t("fairness.expected") }));
      bars.append(h("strong", { role: "rowheader" }, String(f.face)), track, h("span", { class: "num", role: "cell" }, `${f.count} · ${f.share.toFixed(1)}%`));
    }
    box.replaceChildren(h("p", { class: "muted small" }, t("fairness.dice_count", { count: s.total })), bars,
      h("p", {}, t("fairness.chi", { chi: s.chi.toFixed(2) }), " ", h("span", { class: `verdict ${s.uniform ? "ok" : "bad"}` }, s.uniform ? t("fairness.uniform") : t("fairness.suspicious"))));
  }

  /** The match checked: the commitment, the seed once revealed, the verdict and each problem. */
  showCheck() {
    const r = this.ctrl.result;
    if (!r) return;
    if (r.status === "loading") { this.result.replaceChildren(h("p", { class: "muted" }, t("common.loading"))); return; }
    if (r.status === "refused") { this.result.replaceChildren(h("p", { class: "error-text" }, r.error)); return; }
    const lines = [h("p", {}, t("fairness.commitment"), h("br"), h("code", { class: "hash" }, r.record.seed_hash))];
    if (r.status === "sealed") {
      lines.push(h("p", { class: "verdict" }, t("fairness.not_revealed")));
    } else {
      const ok = !r.problems.length;
      lines.push(h("p", {}, t("fairness.seed"), h("br"), h("code", { class: "hash" }, r.record.server_seed)),
        h("p", { class: `verdict ${ok ? "ok" : "bad"}`, "data-verdict": ok ? "ok" : "bad" }, this.ctrl.verdict));
      for (const p of r.problems) lines.push(h("p", { class: "error-text small" }, p));
    }
    this.result.replaceChildren(...lines);
  }
}
