// The match page's controller (src/gammon/client/round/ctrl.js) in Node, with no DOM: a real
// MatchFeed (net.js) over a socket that records what it is asked to send, driven by the
// server's messages; the controller's state and the actions it proposes are checked.
// Run by tests/client/test_client_modules.py (node --test).

import assert from "node:assert/strict";
import { mock, test } from "node:test";

import { MatchFeed } from "../../../src/gammon/client/net.js";
import { INITIAL } from "../../../src/gammon/client/rules.js";
import { RoundCtrl } from "../../../src/gammon/client/round/ctrl.js";
import { bearOffStep, longestMove } from "../../../src/gammon/client/round/moves.js";

assert.equal(typeof document, "undefined", "the controller is tested without a DOM");

const INFO = {
  status: "playing", kind: "match", length: 5, rated: false, clock: "none", bot: null, winner_rolls_anew: false,
  seats: [{ name: "alice", kind: "user" }, { name: "bob", kind: "user" }],
};

/** A game on player 0's turn; `fields` replace the defaults. */
function game(fields = {}) {
  return {
    game: 1, phase: "before_roll", turn: 0, board: INITIAL.slice(), dice: null, dice_left: [],
    legal: null, reach: null, cube: { value: 1, owner: null, enabled: true }, score: [0, 0], length: 5,
    crawford: false, can_double: true, can_undo: false, can_confirm: false, resign_floor: 0, position_id: "4HPwATDgc/ABMA",
    ...fields,
  };
}

/** After a 3-1 on the opening board: the 8 and the 6 may move (a checker on 8 to 5 with both dice). */
const MOVING = {
  phase: "moving", dice: [3, 1], dice_left: [3, 1],
  legal: { 8: { 3: 5, 1: 7 }, 6: { 3: 3, 1: 5 } },
  reach: { 8: { 5: [3], 7: [1], 4: [3, 1] }, 6: { 3: [3], 5: [1], 2: [3, 1] } },
};

/** A controller on a fresh feed for seat `you`, with the state `g`; what was sent and how
 *  often it asked for a redraw. */
function setUp(g, { you = 0, options = {} } = {}) {
  const sent = [];
  const socket = { status: "open", send(message) { sent.push(message); return sent.length; } };
  const feed = new MatchFeed(socket, "m1");
  const effects = { sounds: [], toasts: [], navigated: [], called: [] };
  let redraws = 0;
  const ctrl = new RoundCtrl({
    id: "m1", feed, options: () => ({ graphics: "low", ...options }), redraw: () => { redraws += 1; },
    api: async (method, path) => { throw new Error(`no ${method} ${path} here`); },
    effects: {
      sound: (name) => effects.sounds.push(name), toast: (text) => effects.toasts.push(text),
      navigate: (hash) => effects.navigated.push(hash), callBack: (text) => effects.called.push(text),
    },
  });
  feed.onMessage({ type: "state", v: 4, info: INFO, game: g, you, clock: null, chat: [] });
  const actions = () => sent.filter((m) => m.type !== "subscribe");
  return { ctrl, feed, sent, actions, effects, redraws: () => redraws };
}

test("a whole state is read from the feed: whose turn, what may be done, a redraw asked for", () => {
  const { ctrl, redraws, sent } = setUp(game());
  assert.equal(ctrl.isPlayer, true);
  assert.equal(ctrl.myTurn, true);
  assert.equal(ctrl.canRoll(), true);
  assert.equal(ctrl.canDouble(), true);
  assert.equal(ctrl.moving, false);
  assert.ok(redraws() >= 1);
  // the moves so far are asked for, for the move list
  assert.deepEqual(sent.map((m) => [m.type, m.since]), [["subscribe", 0]]);
});

test("a roll and a double are proposed to the server, one action at a time", () => {
  const { ctrl, actions } = setUp(game());
  ctrl.roll();
  assert.deepEqual(actions().map((m) => [m.type, m.match, m.v]), [["roll", "m1", 4]]);
  assert.equal(ctrl.busy, true);
  ctrl.double(); // the roll is on its way: nothing more is sent
  assert.equal(actions().length, 1);
});

test("the server's answer ends the wait: a double offered after it", () => {
  const { ctrl, feed, actions } = setUp(game());
  ctrl.roll();
  feed.onMessage({ type: "update", v: 5, game: game({ ...MOVING }), events: [{ v: 5, type: "dice_rolled", player: 0, roll: [3, 1] }] });
  assert.equal(ctrl.busy, false);
  assert.equal(ctrl.moving, true);
  assert.equal(ctrl.canDouble(), false, "no double once rolled");
  ctrl.double();
  assert.deepEqual(actions().map((m) => m.type), ["roll"]);
});

test("a move made: the longest move goes as steps, the second after the server took the first", () => {
  const { ctrl, feed, actions } = setUp(game(MOVING));
  assert.deepEqual([...ctrl.reachOf(8).keys()].sort(), [4, 5, 7]);
  ctrl.clickMove(8); // 8/4: the 3 then the 1
  assert.deepEqual(actions().map((m) => [m.type, m.from, m.die]), [["step", 8, 3]]);
  assert.deepEqual(ctrl.chain, { from: 5, dice: [1], v: 4 });
  // other news first (the answer to the page's backfill: nothing new, the same version):
  // the move waits for its own answer
  feed.onMessage({ type: "update", v: 4, events: [], game: game(MOVING) });
  assert.equal(actions().length, 1);
  assert.deepEqual(ctrl.chain, { from: 5, dice: [1], v: 4 });
  const after = INITIAL.slice();
  after[8] -= 1;
  after[5] += 1;
  feed.onMessage({
    type: "update", v: 5, events: [{ v: 5, type: "checker_moved", player: 0, move: { from: 8, to: 5, hit: false } }],
    game: game({ ...MOVING, board: after, dice_left: [1], legal: { 5: { 1: 4 }, 6: { 1: 5 } }, reach: { 5: { 4: [1] }, 6: { 5: [1] } }, can_undo: true }),
  });
  assert.deepEqual(actions().map((m) => [m.type, m.from, m.die]), [["step", 8, 3], ["step", 5, 1]]);
  assert.equal(ctrl.chain, null);
  assert.equal(ctrl.busy, true);
});

test("a move the server does not list is not sent: the player is told why", () => {
  const { ctrl, actions, effects } = setUp(game(MOVING));
  assert.equal(ctrl.tryMove(8, 2), false);
  assert.equal(ctrl.message, "move.cannot_reach");
  assert.equal(ctrl.messageError, true);
  assert.deepEqual(effects.sounds, ["alarm"]);
  assert.equal(actions().length, 0);
  assert.equal(ctrl.tryMove(13, 10), false);
  assert.equal(ctrl.message, "move.checker_stuck");
});

test("undo is proposed only when the server allows it", () => {
  const { ctrl, feed, actions } = setUp(game(MOVING));
  ctrl.undo();
  assert.equal(actions().length, 0, "can_undo is false: nothing to undo");
  feed.onMessage({ type: "update", v: 5, events: [{ v: 5, type: "checker_moved", player: 0, move: { from: 6, to: 5, hit: false } }],
    game: game({ ...MOVING, dice_left: [3], can_undo: true }) });
  assert.equal(ctrl.canUndo(), true);
  ctrl.undo();
  assert.deepEqual(actions().map((m) => m.type), ["undo"]);
});

test("a refusal ends the wait and is said (here, with no strings loaded, in the server's words)", () => {
  const { ctrl, feed, effects } = setUp(game());
  ctrl.roll();
  feed.onMessage({ type: "error", id: 2, code: "illegal", reason: "not_your_turn", message: "not your turn" });
  assert.equal(ctrl.busy, false);
  assert.equal(ctrl.messageError, true);
  assert.equal(ctrl.message, "error.refused not your turn");
  assert.deepEqual(effects.toasts, ["error.refused not your turn"]);
});

test("the opponent's double asks for an answer; the answer is proposed", () => {
  const { ctrl, feed, actions } = setUp(game({ turn: 1 }));
  assert.equal(ctrl.dialogWanted(), null);
  feed.onMessage({ type: "update", v: 5, events: [{ v: 5, type: "cube_offered", player: 1, value: 2 }],
    game: game({ turn: 1, phase: "cube_offered", can_double: false }) });
  assert.equal(ctrl.dialogWanted(), "cube:5");
  assert.equal(ctrl.canRoll(), false);
  ctrl.answer("take");
  assert.deepEqual(actions().map((m) => [m.type, m.v]), [["take", 5]]);
});

test("the opponent's checkers are shown one at a time, then the board is the server's", () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  try {
    const { ctrl, feed } = setUp(game({ turn: 1, phase: "moving", dice: [3, 1], dice_left: [3, 1] }));
    const after = INITIAL.slice();
    after[17] += 1; // their 8 to their 5: index 17 to 20 of player 0's view
    after[20] -= 1;
    feed.onMessage({ type: "update", v: 5, events: [{ v: 5, type: "checker_moved", player: 1, move: { from: 8, to: 5, hit: false } }],
      game: game({ turn: 1, phase: "moving", dice: [3, 1], dice_left: [1], board: after }) });
    assert.equal(ctrl.animating, true);
    mock.timers.tick(60); // the frame the news starts from, then the move
    assert.deepEqual(ctrl.queue.frame?.board, after);
    assert.equal(ctrl.queue.frame?.kind, "move");
    mock.timers.tick(1000);
    assert.equal(ctrl.animating, false);
    assert.deepEqual(ctrl.paced, [{ kind: "move", pause: 160 }], "at the low graphics' pace");
  } finally {
    mock.timers.reset();
  }
});

test("a spectator is told the checkers are not theirs", () => {
  const { ctrl } = setUp(game(MOVING), { you: null });
  assert.equal(ctrl.isPlayer, false);
  assert.equal(ctrl.whyNot(8, 5), "move.spectator");
  assert.equal(ctrl.dialogWanted(), null);
});

test("the longest move and the bear-off step are read from the server's lists", () => {
  assert.deepEqual(longestMove(new Map([[5, { dice: [3] }], [4, { dice: [3, 1] }], [7, { dice: [1] }]])), [3, 1]);
  assert.equal(longestMove(new Map()), null);
  assert.deepEqual(bearOffStep({ 4: { 4: 0, 5: 0 }, 2: { 4: 0 } }), { src: 4, die: 5 }, "the highest die");
  assert.equal(bearOffStep({ 4: { 4: 0, 1: 3 } }), null, "a step that stays on the board: nothing automatic");
});

test("a player away from the tab is called back once when the game comes to wait for them", () => {
  const { ctrl, feed, effects } = setUp(game({ turn: 1 }), { you: 0 });
  assert.equal(ctrl.myDecision, false);
  assert.deepEqual(effects.called, []); // the first state calls nobody back
  // the opponent doubles: the game waits for this player's answer
  feed.onMessage({ type: "update", v: 5, events: [{ v: 5, type: "cube_offered", player: 1, value: 2 }],
    game: game({ turn: 1, phase: "cube_offered" }) });
  assert.equal(ctrl.myDecision, true);
  assert.deepEqual(effects.called, ["attention.your_turn"]);
  // taken: the doubler rolls and plays; then this player's turn, one call more
  feed.onMessage({ type: "update", v: 6, events: [{ v: 6, type: "cube_taken", player: 0 }],
    game: game({ turn: 1, phase: "before_roll", cube: { value: 2, owner: 0, enabled: true } }) });
  assert.equal(ctrl.myDecision, false);
  feed.onMessage({ type: "update", v: 7, events: [{ v: 7, type: "turn_ended", player: 1, moves: [] }],
    game: game({ turn: 0 }) });
  feed.onMessage({ type: "update", v: 8, events: [{ v: 8, type: "dice_rolled", player: 0, roll: [3, 1] }],
    game: game({ ...MOVING }) });
  assert.deepEqual(effects.called, ["attention.your_turn", "attention.your_turn"]);
});
