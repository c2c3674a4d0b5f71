// movelist.js: the move list, the board's feedback and the sentences, from the server's
// events (PROTOCOL.md, Events); a play is written as the server wrote it (`play`).

import assert from "node:assert/strict";
import { before, describe, test } from "node:test";

import { clientFetch } from "./support.mjs";

globalThis.document = /** @type {any} */ ({ documentElement: {} });
globalThis.fetch = /** @type {any} */ (clientFetch());

const { setLanguage } = await import("../../../src/gammon/client/i18n.js");
const ml = await import("../../../src/gammon/client/movelist.js");

const names = ["Ann", "Bob"];
const name = (/** @type {number} */ seat) => names[seat];

/** A short game's events: the opening 3-1 to Bob, his 8/5 6/5, Ann's 6-4 with a hit, a
 *  double taken, Bob's pass. */
function game() {
  let v = 0;
  const e = (/** @type {object} */ fields) => ({ ...fields, v: ++v });
  return [
    e({ type: "game_started", number: 1, crawford: false }),
    e({ type: "opening_rolled", first: 1, throws: [[1, 3]], roll: [3, 1] }),
    e({ type: "dice_rolled", player: 1, roll: [3, 1] }),
    e({ type: "checker_moved", player: 1, move: { from: 8, to: 5, hit: false, text: "8/5" }, die: 3 }),
    e({ type: "checker_moved", player: 1, move: { from: 6, to: 5, hit: false, text: "6/5" }, die: 1 }),
    e({ type: "turn_ended", player: 1, moves: [{ from: 8, to: 5, hit: false, text: "8/5" }, { from: 6, to: 5, hit: false, text: "6/5" }], play: "8/5 6/5" }),
    e({ type: "dice_rolled", player: 0, roll: [4, 6] }),
    e({ type: "turn_ended", player: 0, moves: [{ from: 24, to: 18, hit: false, text: "24/18" }, { from: 13, to: 9, hit: true, text: "13/9*" }], play: "24/18 13/9*" }),
    e({ type: "cube_offered", player: 1, value: 2 }),
    e({ type: "cube_taken", player: 0, value: 2 }),
    e({ type: "dice_rolled", player: 1, roll: [6, 6] }),
    e({ type: "no_legal_move", player: 1, roll: [6, 6] }),
    e({ type: "turn_ended", player: 1, moves: [], play: "" }),
  ];
}

describe("dice", () => {
  test("are written higher first, doubles four times when asked", () => {
    assert.equal(ml.diceText([3, 6]), "63");
    assert.deepEqual(ml.diceValues([3, 6]), [6, 3]);
    assert.deepEqual(ml.diceValues([5, 5], true), [5, 5, 5, 5]);
    assert.deepEqual(ml.diceValues([5, 5]), [5, 5]);
  });
  test("of the opening: rolled anew by the match's rule, else when not the last throw", () => {
    const opening = { throws: [[2, 2], [1, 3]], roll: [3, 1] };
    assert.equal(ml.rolledAnew(opening), false);
    assert.equal(ml.rolledAnew({ ...opening, roll: [6, 5] }), true);
    assert.equal(ml.rolledAnew(opening, true), true);
  });
});

describe("the move list", () => {
  before(async () => { await setLanguage("en"); });

  test("numbers the move pairs, writes the server's play, puts the cube on a line", () => {
    const rows = ml.moveRows(game(), name);
    assert.deepEqual(rows.map((r) => r.kind), ["game", "opening", "moves", "moves", "cube", "moves"]);
    const [, , first, second, cube, third] = rows;
    assert.equal(first.number, 1);
    assert.deepEqual(first.cells.map((c) => c?.text ?? null), [null, "31: 8/5 6/5"]);
    assert.equal(second.number, 2);
    assert.equal(second.cells[0].text, "64: 24/18 13/9*");
    assert.match(cube.text, /Bob doubles to 2.*Ann takes/);
    assert.equal(third.number, 2); // Bob's answer to Ann's move, after the cube line
    assert.equal(third.cells[1].text, "66: cannot move");
  });

  test("says a play in words as the server wrote it", () => {
    const events = game();
    const said = ml.describeEvent(events[5], events[4], name);
    assert.equal(said, "Bob played 8/5 6/5.");
    assert.equal(ml.describeEvent(events[12], events[11], name), null); // a pass says nothing more
  });
});

describe("the board's feedback", () => {
  test("follows the dice left, the moves of the turn and a step taken back", () => {
    const events = game();
    let fb = ml.feedbackOf(events.slice(0, 4));
    assert.deepEqual(fb.dice?.left, [1]);
    assert.deepEqual(fb.last?.moves.map((m) => m.text), ["8/5"]);
    fb = ml.reduceFeedback(fb, { type: "step_undone", player: 1, move: { from: 8, to: 5, hit: false, text: "8/5" }, die: 3, v: 5 });
    assert.deepEqual(fb.dice?.left, [3, 1]);
    assert.deepEqual(fb.last?.moves, []);
    fb = ml.feedbackOf(events.slice(0, 6));
    assert.deepEqual(fb.dice?.left, []);
    assert.equal(fb.last?.live, false);
    assert.deepEqual(fb.opening?.roll, [3, 1]);
    assert.deepEqual(ml.feedbackOf([...events, { type: "game_started", number: 2, crawford: false, v: 14 }]), ml.emptyFeedback());
  });
  test("shows the opening's two dice as one roll unless the winner rolled anew", () => {
    const fb = ml.feedbackOf(game().slice(0, 3));
    assert.deepEqual(fb.dice?.opening, [1, 3]);
    assert.equal(ml.feedbackOf(game().slice(0, 3), true).dice?.opening, null);
  });
});
