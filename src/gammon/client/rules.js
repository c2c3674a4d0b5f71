// @ts-check
// rules.js — the few facts of the game the client keeps for itself, so that the board
// answers at once: the starting position, the counts of a board (checkers, pips), a move
// put on a board, and the moves of a play written in notation. Everything else the server
// decides and says (the rules library, gammon.core; PROTOCOL.md). Each fact here is the
// core's, and tests/client/js/rules.test.mjs checks it against the core on the positions
// of tests/data/movegen_reference.tsv (tests/client/test_client_modules.py writes what the core
// says of them).
//
// A board is the server's `game.board` (GameView): 26 signed counts in player 0's view,
// player 0's checkers positive on points 1-24 and its bar at 25, player 1's negative, its
// bar at 0. A move is {from, to, hit} in the mover's own numbering (25 its bar, 0 off), as
// the events list them (MoveView).

/** @typedef {number[]} Board
 *  @typedef {{from: number, to: number, hit: boolean}} Move
 *  @typedef {{points: number[][], bar: number[], off: number[]}} SeatCounts */

/** The checkers each side has (gammon.core.position.CHECKERS). */
export const CHECKERS = 15;

/** The starting position (gammon.core.position.Position.initial()). */
export const INITIAL = Object.freeze([0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0]);

/** Each seat's checkers: `points[seat][a]` on point `a` (player 0's numbering), on the bar,
 *  and borne off.
 *  @param {readonly number[]} board
 *  @returns {SeatCounts} */
export function seatCounts(board) {
  const points = [new Array(25).fill(0), new Array(25).fill(0)];
  let on0 = 0;
  let on1 = 0;
  for (let a = 1; a <= 24; a++) {
    if (board[a] > 0) { points[0][a] = board[a]; on0 += board[a]; }
    if (board[a] < 0) { points[1][a] = -board[a]; on1 -= board[a]; }
  }
  const bar = [Math.max(board[25], 0), Math.max(-board[0], 0)];
  on0 += bar[0];
  on1 += bar[1];
  return { points, bar, off: [CHECKERS - on0, CHECKERS - on1] };
}

/** Pip counts [seat 0, seat 1]; a checker on the bar counts 25
 *  (gammon.core.position.Position.pips).
 *  @param {readonly number[]} board
 *  @returns {[number, number]} */
export function pipCounts(board) {
  let p0 = 25 * Math.max(board[25], 0);
  let p1 = 25 * Math.max(-board[0], 0);
  for (let a = 1; a <= 24; a++) {
    if (board[a] > 0) p0 += a * board[a];
    if (board[a] < 0) p1 += (25 - a) * -board[a];
  }
  return [p0, p1];
}

/** The board after `player` made `move` (or, `reverse`, before it: a step taken back);
 *  null if the move does not fit the board (then the caller shows the server's board).
 *  Bookkeeping only: it decides nothing of what is legal.
 *  @param {readonly number[]} board
 *  @param {number} player
 *  @param {Move} move
 *  @param {{reverse?: boolean}} [options]
 *  @returns {Board | null} */
export function applyMove(board, player, move, { reverse = false } = {}) {
  const b = board.slice();
  const sign = player === 0 ? 1 : -1;
  /** a point in the mover's numbering -> an index in player 0's view
   *  @param {number} p */
  const idx = (p) => {
    if (p === 25) return player === 0 ? 25 : 0;
    return player === 0 ? p : 25 - p;
  };
  const oppBar = player === 0 ? 0 : 25;
  const from = idx(move.from);
  if (!reverse) {
    if (sign * b[from] <= 0) return null;
    b[from] -= sign;
    if (move.to > 0) {
      const to = idx(move.to);
      if (move.hit) {
        if (b[to] !== -sign) return null;
        b[to] = 0;
        b[oppBar] -= sign; // the hit checker goes to its own bar
      } else if (sign * b[to] < 0) return null;
      b[to] += sign;
    }
  } else {
    if (move.to > 0) {
      const to = idx(move.to);
      if (sign * b[to] <= 0) return null;
      b[to] -= sign;
      if (move.hit) {
        if (sign * b[oppBar] >= 0) return null;
        b[oppBar] += sign;
        b[to] = -sign;
      }
    }
    b[from] += sign;
  }
  return b;
}

/** The moves of a play in notation ("24/18 13/9*", "6/4(2)", "bar/20", "6/off"; a path
 *  through a hit, 13/7* then /5, is two moves), as gammon.core.notation writes it: what the
 *  board draws for a play the server named (a hint, the engine's best). The moves that hit
 *  come first, so that they can be made in their order ("6/1(2) 6/1*": the hit, then the
 *  two that follow the hitting checker; the notation never makes a hit wait for another
 *  move, it joins such moves into one path).
 *  @param {string} text
 *  @returns {Move[]} */
export function playMoves(text) {
  /** @param {string} word */
  const at = (word) => {
    const w = word.replace("*", "").toLowerCase();
    return w === "bar" ? 25 : w === "off" ? 0 : Number(w);
  };
  /** @type {Move[]} */
  const moves = [];
  for (const token of text.split(/\s+/).filter(Boolean)) {
    const [, path, count] = /** @type {RegExpExecArray} */ (/^(.*?)(?:\((\d)\))?$/.exec(token));
    const points = path.split("/");
    for (let n = 0; n < Number(count || 1); n++) {
      for (let i = 1; i < points.length; i++) moves.push({ from: at(points[i - 1]), to: at(points[i]), hit: points[i].endsWith("*") });
    }
  }
  return moves.sort((a, b) => Number(b.hit) - Number(a.hit)); // stable: a path keeps its order
}
