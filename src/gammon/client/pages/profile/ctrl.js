// @ts-check
// pages/profile/ctrl.js — a player's profile, no DOM (as the lobby's pages/lobby/ctrl.js):
// the rating after each rated match and the error rate of each analysed match, as points of
// a graph, the results by kind and length, the most frequent opponents, the tournaments
// entered as the rows of a table. The page (pages/profile.js) draws it when it says what
// changed.

import { t } from "../../i18n.js";

/** @typedef {import("../../round/types.js").Api} Api */
/** @typedef {import("../../wire.js").ProfileView} ProfileView */
/** @typedef {import("../../wire.js").UserView | null | undefined} Me */
/** @typedef {import("../../wire.js").ProfileTournamentView} ProfileTournamentView */
/** A tournament's row: its name and page, its format, the player's place in words (or,
 *  before its end, its state; "withdrawn" added when they withdrew), when it finished.
 *  @typedef {{id: string, name: string, href: string, format: string, place: string, finishedAt: number | null}} TournamentRow */
/** A graph's line: its points (SVG `points`, x from 0 to `width`, y from 0 at the top to
 *  `height`), the values' lowest and highest, and the last value.
 *  @typedef {{points: string, low: number, high: number, last: number, count: number}} Graph */

/** A tournament of the profile as a table's row.
 *  @param {ProfileTournamentView} tm @returns {TournamentRow} */
export function tournamentRow(tm) {
  let place = tm.place !== null && tm.entrants !== null
    ? t("profile.place_of", { place: tm.place, count: tm.entrants })
    : t(`tournament.state_${tm.state}`);
  if (tm.withdrawn) place += ` · ${t("tournament.withdrawn")}`;
  return { id: tm.id, name: tm.name, href: `#/tournaments/${encodeURIComponent(tm.id)}`,
    format: t(`tournament.format_${tm.format}`), place, finishedAt: tm.finished_at };
}

/** The line of `values` in a `width` × `height` box, the lowest value at the bottom (a
 *  flat line in the middle when they are all equal); null without values.
 *  @param {number[]} values @param {number} width @param {number} height @returns {Graph | null} */
export function graph(values, width, height) {
  if (!values.length) return null;
  const low = Math.min(...values);
  const high = Math.max(...values);
  const span = high - low;
  const step = values.length > 1 ? width / (values.length - 1) : 0;
  const y = (/** @type {number} */ v) => (span ? (1 - (v - low) / span) * height : height / 2);
  const points = values.map((v, i) => `${(i * step).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  return { points, low, high, last: values[values.length - 1], count: values.length };
}

export class ProfileCtrl {
  /** @param {string | undefined} name the player the route names; none: the signed-in one
   *  @param {{me: () => Me, api: Api, changed: () => void}} deps */
  constructor(name, deps) {
    this.deps = deps;
    this.name = name || deps.me()?.name || "";
    /** @type {ProfileView | null} */ this.profile = null;
    /** @type {string} why it could not be read, in the player's language where known */
    this.error = "";
  }

  async load() {
    try {
      this.profile = await this.deps.api("GET", `/api/users/${encodeURIComponent(this.name)}/profile`);
    } catch (err) {
      this.error = err.status === 404 ? t("history.no_player") : err.message;
    }
    this.deps.changed();
  }

  /** The rating's line (its start, 1500, first when the player has rated matches).
   *  @param {number} width @param {number} height */
  ratingGraph(width, height) {
    const points = this.profile?.ratings || [];
    return graph(points.length ? [1500, ...points.map((p) => p.rating)] : [], width, height);
  }

  /** The error rate's line, one point an analysed match. @param {number} width @param {number} height */
  errorGraph(width, height) {
    return graph((this.profile?.error_rates || []).map((p) => p.error_rate), width, height);
  }

  /** The tournaments entered (the last twenty public ones, newest first), as rows. */
  get tournaments() {
    return (this.profile?.tournaments || []).map(tournamentRow);
  }

  /** The mean error rate over the analysed matches (null: none). */
  get meanErrorRate() {
    const rates = this.profile?.error_rates || [];
    return rates.length ? rates.reduce((sum, p) => sum + p.error_rate, 0) / rates.length : null;
  }
}
