// @ts-check
// pages/fairness.js — dice statistics and a match's dice checked in the browser
// (#/fairness[/ID], fairness.js).

import { verifyRecord } from "../fairness.js";
import { t } from "../i18n.js";
import { api } from "../net.js";
import { Page, check } from "./page.js";
import { h } from "../ui.js";

export class FairnessPage extends Page {
  constructor(app, id) { super(app); this.id = id; }

  async mount(main) {
    const stats = h("div", {}, h("p", { class: "muted" }, t("common.loading")));
    const result = h("div", { "aria-live": "polite" });
    const input = h("input", { type: "text", name: "match", value: this.id || "", "aria-label": t("fairness.match_id"), placeholder: t("fairness.match_id") });
    const form = h("form", { class: "row" }, input, h("button", { type: "submit", class: "primary" }, t("fairness.check")));
    form.addEventListener("submit", (e) => { e.preventDefault(); this.check(input.value.trim(), result); });
    main.replaceChildren(h("h1", {}, t("fairness.title")),
      h("div", { class: "grid" },
        h("section", { class: "card stack" }, h("h2", {}, t("fairness.check_title")), h("p", { class: "muted small" }, t("fairness.explain")), form, result),
        h("section", { class: "card" }, h("h2", {}, t("fairness.stats_title")), stats)));
    if (this.id) this.check(this.id, result);
    try {
      const data = await api("GET", "/api/dice-stats");
      this.renderStats(stats, data);
    } catch (err) { stats.replaceChildren(h("p", { class: "error-text" }, err.message)); }
  }

  renderStats(box, data) {
    const total = data.dice || 0;
    if (!total) { box.replaceChildren(h("p", { class: "empty" }, t("fairness.no_dice"))); return; }
    const expected = total / 6;
    const max = Math.max(...data.faces, expected) * 1.1;
    let chi = 0;
    for (const n of data.faces) chi += (n - expected) ** 2 / expected;
    const bars = h("div", { class: "bars", role: "table", "aria-label": t("fairness.faces") });
    data.faces.forEach((n, i) => {
      const track = h("div", { class: "bar-track", role: "cell" }, h("div", { class: "bar-fill", style: `width:${(100 * n) / max}%` }),
        h("div", { class: "bar-expected", style: `left:${(100 * expected) / max}%`, title: t("fairness.expected") }));
      bars.append(h("strong", { role: "rowheader" }, String(i + 1)), track, h("span", { class: "num", role: "cell" }, `${n} · ${((100 * n) / total).toFixed(1)}%`));
    });
    // 5 degrees of freedom: 11.07 is the 95% point of the chi-squared distribution
    const fine = chi < 11.07;
    box.replaceChildren(h("p", { class: "muted small" }, t("fairness.dice_count", { count: total })), bars,
      h("p", {}, t("fairness.chi", { chi: chi.toFixed(2) }), " ", h("span", { class: `verdict ${fine ? "ok" : "bad"}` }, fine ? t("fairness.uniform") : t("fairness.suspicious"))));
  }

  async check(id, box) {
    if (!id) return;
    box.replaceChildren(h("p", { class: "muted" }, t("common.loading")));
    try {
      const record = await api("GET", `/api/games/${encodeURIComponent(id)}/fairness`);
      const lines = [h("p", {}, t("fairness.commitment"), h("br"), h("code", { class: "hash" }, record.seed_hash))];
      if (!record.server_seed) {
        lines.push(h("p", { class: "verdict" }, t("fairness.not_revealed")));
        box.replaceChildren(...lines);
        return;
      }
      lines.push(h("p", {}, t("fairness.seed"), h("br"), h("code", { class: "hash" }, record.server_seed)));
      const check = await verifyRecord(record);
      const ok = !check.problems.length;
      lines.push(h("p", { class: `verdict ${ok ? "ok" : "bad"}`, "data-verdict": ok ? "ok" : "bad" },
        ok ? t("fairness.verified", { count: check.count }) : t("fairness.failed")));
      for (const p of check.problems) lines.push(h("p", { class: "error-text small" }, p));
      box.replaceChildren(...lines);
    } catch (err) {
      box.replaceChildren(h("p", { class: "error-text" }, err.status === 404 ? t("replay.not_found") : err.message));
    }
  }
}
