// @ts-check
// pages/fairness/ctrl.js — the dice check's controller, no DOM (as the lobby's
// pages/lobby/ctrl.js): the dice statistics of every match and what they say (each face's
// share, the chi-squared against fair dice), and a match's dice checked here, in the
// browser, from its record (fairness.js): the commitment, the seed once revealed, the
// verdict. The page (pages/fairness.js) draws it when it says what changed.

import { verifyRecord } from "../../fairness.js";
import { t } from "../../i18n.js";

/** @typedef {import("../../round/types.js").Api} Api */
/** @typedef {import("../../wire.js").DiceStats} DiceStats */
/** @typedef {import("../../wire.js").FairnessRecord} FairnessRecord */
/** @typedef {"stats" | "check"} FairnessPart */
/** What a match's check came to: `loading` (asked), `sealed` (the seed not revealed yet:
 *  the commitment only), `checked` (every die recomputed: `problems` empty when each is
 *  what the seeds give), `refused` (no record: `error` in the player's language).
 *  @typedef {{status: "loading", id: string}
 *    | {status: "sealed", id: string, record: FairnessRecord}
 *    | {status: "checked", id: string, record: FairnessRecord, problems: string[], count: number}
 *    | {status: "refused", id: string, error: string}} DiceCheck */
/** One face's bar: its count, its share of the dice (%), the bar's width (% of the scale).
 *  @typedef {{face: number, count: number, share: number, width: number}} FaceBar */
/** The statistics read: the dice in all, each face's bar, where a fair die's count falls on
 *  the scale (%), the chi-squared and whether it is within a fair die's 95%.
 *  @typedef {{total: number, faces: FaceBar[], expectedAt: number, chi: number,
 *    uniform: boolean}} DiceSummary */

/** The 95% point of the chi-squared distribution with 5 degrees of freedom (six faces). */
export const CHI_95 = 11.07;

/** What the controller needs of the page around it.
 *  @typedef {{api: Api, changed: (part: FairnessPart) => void}} FairnessDeps */

export class FairnessCtrl {
  /** @param {string | undefined} id the match the route names (#/fairness/ID), checked at
   *  the start @param {FairnessDeps} deps */
  constructor(id, deps) {
    this.id = id || "";
    this.deps = deps;
    /** @type {DiceStats | null} the statistics (null: none received yet) */
    this.stats = null;
    /** @type {string} why the statistics could not be read */
    this.statsError = "";
    /** @type {DiceCheck | null} the last match checked (null: none asked) */
    this.result = null;
  }

  /** The page is shown: the route's match checked, the statistics read. */
  async start() {
    if (this.id) this.check(this.id);
    try {
      this.stats = await this.deps.api("GET", "/api/dice-stats");
    } catch (err) {
      this.statsError = err.message;
    }
    this.deps.changed("stats");
  }

  /** The statistics as the page shows them; null before they come or with no dice yet.
   *  @returns {DiceSummary | null} */
  get summary() {
    const total = this.stats?.dice || 0;
    if (!this.stats || !total) return null;
    const faces = this.stats.faces;
    const expected = total / 6;
    const max = Math.max(...faces, expected) * 1.1;
    let chi = 0;
    for (const n of faces) chi += (n - expected) ** 2 / expected;
    return {
      total, chi, uniform: chi < CHI_95, expectedAt: (100 * expected) / max,
      faces: faces.map((count, i) => ({ face: i + 1, count, share: (100 * count) / total, width: (100 * count) / max })),
    };
  }

  /** Check match `id`'s dice (a blank id asks nothing): its record read, then every die
   *  recomputed from the revealed seed. The last check to end is the one held.
   *  @param {string} id */
  async check(id) {
    id = id.trim();
    if (!id) return;
    this.show({ status: "loading", id });
    try {
      /** @type {FairnessRecord} */
      const record = await this.deps.api("GET", `/api/games/${encodeURIComponent(id)}/fairness`);
      if (!record.server_seed) { this.show({ status: "sealed", id, record }); return; }
      const { problems, count } = await verifyRecord(record);
      this.show({ status: "checked", id, record, problems, count });
    } catch (err) {
      this.show({ status: "refused", id, error: err.status === 404 ? t("replay.not_found") : err.message });
    }
  }

  /** The verdict of a check done, in the player's language; "" before one. */
  get verdict() {
    const r = this.result;
    if (r?.status !== "checked") return "";
    return r.problems.length ? t("fairness.failed") : t("fairness.verified", { count: r.count });
  }

  /** @param {DiceCheck} result */
  show(result) {
    this.result = result;
    this.deps.changed("check");
  }
}
