// rules.js against the core (tests/data/movegen_reference.tsv's positions, as
// gammon.core says them: tests/client/test_client_modules.py).

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { applyMove, CHECKERS, INITIAL, pipCounts, playMoves, seatCounts } from "../../../src/gammon/client/rules.js";
import { coreFacts, NO_FACTS, swapBoard } from "./support.mjs";

const facts = coreFacts();
const skip = facts ? false : NO_FACTS;

/** The board after `moves` of `player`, one at a time (null if one does not fit). */
function play(board, player, moves) {
  let b = board;
  for (const move of moves) {
    b = applyMove(b, player, move);
    if (b === null) return null;
  }
  return b;
}

describe("the starting position", () => {
  test("is the core's, 15 checkers a side and 167 pips each", { skip }, () => {
    assert.deepEqual([...INITIAL], facts.initial);
  });
  test("has 167 pips a side and no checker off", () => {
    assert.deepEqual(pipCounts(INITIAL), [167, 167]);
    assert.deepEqual(seatCounts(INITIAL).off, [0, 0]);
    assert.equal(CHECKERS, 15);
  });
  test("cannot be changed", () => {
    assert.throws(() => { /** @type {number[]} */ (INITIAL)[6] = 0; }, TypeError);
  });
});

describe("the counts of a board are the core's", { skip }, () => {
  test("pips, checkers on the bar and borne off, from either side", () => {
    assert.ok(facts.positions.length > 500);
    for (const p of facts.positions) {
      assert.deepEqual(pipCounts(p.board), p.pips, p.position_id);
      const counts = seatCounts(p.board);
      assert.deepEqual(counts.bar, p.on_bar, p.position_id);
      assert.deepEqual(counts.off, p.borne_off, p.position_id);
      // the same board with the other side to play
      assert.deepEqual(pipCounts(swapBoard(p.board)), [...p.pips].reverse(), p.position_id);
    }
  });
});

describe("a play put on the board gives the core's position after it", { skip }, () => {
  test("its moves, one at a time, by either player", () => {
    let checked = 0;
    for (const p of facts.positions) {
      for (const q of p.plays) {
        assert.deepEqual(play(p.board, 0, q.moves), q.after, `${p.position_id} ${q.notation}`);
        assert.deepEqual(play(swapBoard(p.board), 1, q.moves), swapBoard(q.after), `${p.position_id} ${q.notation} (player 1)`);
        checked += 1;
      }
    }
    assert.ok(checked > 1000);
  });
  test("taken back in reverse order, the board before it", () => {
    for (const p of facts.positions) {
      for (const q of p.plays) {
        let b = q.after;
        for (const move of [...q.moves].reverse()) b = applyMove(b, 0, move, { reverse: true });
        assert.deepEqual(b, p.board, `${p.position_id} ${q.notation}`);
      }
    }
  });
  test("read from its notation (playMoves), the same", () => {
    for (const p of facts.positions) {
      for (const q of p.plays) {
        assert.deepEqual(play(p.board, 0, playMoves(q.notation)), q.after, `${p.position_id} ${q.notation}`);
      }
    }
  });
});

describe("a move that does not fit the board", () => {
  test("from a point without a checker of the mover", () => {
    assert.equal(applyMove(INITIAL, 0, { from: 5, to: 2, hit: false }), null);
    assert.equal(applyMove(INITIAL, 1, { from: 5, to: 2, hit: false }), null);
  });
  test("onto the opponent's point, or a hit where no blot stands", () => {
    assert.equal(applyMove(INITIAL, 0, { from: 13, to: 12, hit: false }), null);
    assert.equal(applyMove(INITIAL, 0, { from: 13, to: 12, hit: true }), null);
    assert.equal(applyMove(INITIAL, 0, { from: 13, to: 10, hit: true }), null);
  });
  test("changes nothing of the board given", () => {
    const board = [...INITIAL];
    applyMove(board, 0, { from: 13, to: 10, hit: false });
    assert.deepEqual(board, [...INITIAL]);
  });
});

describe("playMoves reads the notation", () => {
  test("counts, a path through a hit, the bar and off", () => {
    assert.deepEqual(playMoves("13/7*/5 6/4(2)"), [
      { from: 13, to: 7, hit: true }, { from: 7, to: 5, hit: false },
      { from: 6, to: 4, hit: false }, { from: 6, to: 4, hit: false }]);
    assert.deepEqual(playMoves("bar/20* 6/off"), [{ from: 25, to: 20, hit: true }, { from: 6, to: 0, hit: false }]);
    assert.deepEqual(playMoves(""), []);
  });
  test("puts a hit before the moves that follow the hitting checker", () => {
    assert.deepEqual(playMoves("13/8 6/1(2) 6/1*").map((m) => `${m.from}/${m.to}${m.hit ? "*" : ""}`),
      ["6/1*", "13/8", "6/1", "6/1"]);
  });
});
