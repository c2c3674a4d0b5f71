// @ts-check
// round/matchid.js — the GNU Backgammon Match ID of a game in play, for the hint's
// POST /api/eval and POST /api/hint (the server reads the cube, score and turn from it).
// It goes once the server sends the Match ID with the game (GameView's `match_id`).

/** The GNU Backgammon Match ID (its manual, "A technical description of the Match ID"; the
 *  server's reader is gammon.formats.match_id) of game `g` before the side on turn rolls.
 *  Player numbers are seats.
 *  @param {{cube: {value: number, owner?: number | null}, turn: number, crawford?: boolean,
 *    length?: number | null, score: number[]}} g
 *  @param {{jacoby?: boolean} | null | undefined} info */
export function gnubgMatchId(g, info) {
  const key = new Uint8Array(9);
  let bit = 0;
  /** least significant bit first, from bit 0 of byte 0 @param {number} value @param {number} width */
  const put = (value, width) => {
    for (let i = 0; i < width; i++, bit++) if ((value >> i) & 1) key[bit >> 3] |= 1 << (bit & 7);
  };
  const money = !g.length;
  put(Math.log2(g.cube.value), 4);
  put(g.cube.owner === null || g.cube.owner === undefined ? 3 : g.cube.owner, 2); // 3: centred
  put(g.turn, 1); // the dice owner: the side to roll
  put(g.crawford ? 1 : 0, 1);
  put(1, 3); // a game in play
  put(g.turn, 1); // on turn
  put(0, 1); // no double offered
  put(0, 2); // no resignation offered
  put(0, 6); // not rolled yet
  put(money ? 0 : Number(g.length), 15);
  put(money ? 0 : g.score[0], 15);
  put(money ? 0 : g.score[1], 15);
  put(info?.jacoby ? 0 : 1, 1); // GNU Backgammon stores "no Jacoby rule"
  return btoa(String.fromCharCode(...key));
}
