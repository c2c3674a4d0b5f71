// @ts-check
// round/over.js — the facts of a match's end: how it ended (from the events and the info),
// the players' ratings before and after (a rated match, as the server's rating history
// holds it) and the post-match analysis (polled while it runs). No DOM: the match-end
// dialog (view/over.js) draws them when `onChange` says they moved.

/** @typedef {import("./types.js").Api} Api */

/** How the match ended, from the events held (the last game's end, the match's end) and the
 *  match info: {winner, score, reason, game} (`game`: the last game_ended, or null).
 *  @param {any[]} events @param {any} matchEnd the match_ended event seen live, if any
 *  @param {any} info @param {any} g the game */
export function overFacts(events, matchEnd, info, g) {
  const ended = matchEnd || [...events].reverse().find((e) => e.type === "match_ended");
  const end = ended || info?.result || {};
  const winner = end.winner ?? g?.winner ?? null;
  const score = end.score || g?.score || [0, 0];
  const upTo = ended ? events.indexOf(ended) : events.length;
  const game = [...events.slice(0, upTo < 0 ? events.length : upTo)].reverse().find((e) => e.type === "game_ended") || null;
  return { winner, score, reason: end.reason ?? null, game };
}

export class MatchEnd {
  /**
   * @param {{id: string, query: string, api: Api, info: () => any, onChange: () => void}} how
   */
  constructor({ id, query, api, info, onChange }) {
    this.id = id;
    this.query = query;
    this.api = api;
    this.info = info;
    this.onChange = onChange;
    this.active = false; // the match-end dialog is open: its facts are wanted
    /** @type {Record<string, {before: number, after: number}> | null} */
    this.ratingChanges = null;
    /** @type {any} the analysis, once done */
    this.analysis = null;
    /** @type {{progress?: {done: number, total: number}, busy?: boolean, error?: string} | null} */
    this.analysisState = null;
    this.analysisLoading = false;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.analysisTimer = undefined;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.ratingTimer = undefined;
  }

  start() {
    this.active = true;
    this.loadRatings();
    this.loadAnalysis();
  }

  stop() {
    this.active = false;
    clearTimeout(this.analysisTimer);
    clearTimeout(this.ratingTimer);
  }

  /** Rated matches: each player's rating before and after, asked again a few times while
   *  the server's history does not hold it yet. */
  async loadRatings(tries = 6) {
    const info = this.info();
    if (!this.active || !info?.rated) return;
    const seats = (info.seats || []).filter((/** @type {any} */ s) => s && s.kind === "user");
    /** @type {Record<string, {before: number, after: number}>} */
    const found = {};
    for (const s of seats) {
      try {
        const answer = await this.api("GET", `/api/users/${encodeURIComponent(s.name)}/ratings`);
        const change = answer.history.find((/** @type {any} */ c) => c.match === this.id);
        if (change) found[s.name] = change;
      } catch { /* asked again below */ }
    }
    if (!this.active) return;
    this.ratingChanges = found;
    this.onChange();
    if (Object.keys(found).length < seats.length && tries > 1) {
      this.ratingTimer = setTimeout(() => this.loadRatings(tries - 1), 1500);
    }
  }

  /** The post-match analysis: its progress while it runs (polled, and asked at once when the
   *  socket says it moved), then each side's error rate. */
  async loadAnalysis() {
    clearTimeout(this.analysisTimer);
    if (!this.active || this.analysis || this.analysisLoading) return;
    this.analysisLoading = true;
    let retry = 2000;
    try {
      const answer = await this.api("GET", `/api/games/${this.id}/analysis${this.query}`);
      if (answer.players) this.analysis = answer;
      else this.analysisState = { progress: answer };
    } catch (err) {
      const error = /** @type {{code?: string, message: string}} */ (err);
      if (error.code === "analysis_busy") { this.analysisState = { busy: true }; retry = 30_000; }
      else { this.analysisState = { error: error.message }; retry = 0; }
    } finally {
      this.analysisLoading = false;
    }
    if (!this.active) return;
    this.onChange();
    if (!this.analysis && retry) this.analysisTimer = setTimeout(() => this.loadAnalysis(), retry);
  }
}
