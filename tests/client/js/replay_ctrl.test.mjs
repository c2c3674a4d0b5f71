// The replay page's controller (src/gammon/client/pages/replay/ctrl.js) in Node, with no
// DOM: the route read, the match's info asked, the frames and the move list made from the
// events a feed stand-in holds, the frame shown as the events grow and as the player steps,
// over an HTTP stand-in that records what it is asked. Run by
// tests/client/test_client_modules.py (node --test).

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { ReplayCtrl } from "../../../src/gammon/client/pages/replay/ctrl.js";

assert.equal(typeof document, "undefined", "the controller is tested without a DOM");

const INFO = {
  id: "m1", status: "playing", kind: "match", length: 3, cube: true, clock: "none", bot: null,
  jacoby: false, beavers: false, winner_rolls_anew: false, private: false, rated: false,
  seats: [{ id: 1, name: "ann", kind: "user", rating: 1500, bot: false }, null],
  seed_hash: "", client_seeds: ["", ""], server_seed: null, rematch_of: null, result: null,
};

const move = (from, to) => ({ from, to, hit: false, text: `${from}/${to}` });

/** A game's first turns: its start, the opening (3-1 to ann), her 8/5 6/5, bob's 6-4 24/14. */
const EVENTS = [
  { v: 1, type: "game_started", number: 1, crawford: false },
  { v: 2, type: "opening_rolled", first: 0, throws: [[3, 1]], roll: [3, 1] },
  { v: 3, type: "dice_rolled", player: 0, roll: [3, 1] },
  { v: 4, type: "turn_ended", player: 0, moves: [move(8, 5), move(6, 5)], play: "8/5 6/5" },
  { v: 5, type: "dice_rolled", player: 1, roll: [6, 4] },
  { v: 6, type: "turn_ended", player: 1, moves: [move(24, 18), move(18, 14)], play: "24/14" },
];
/** Ann's next turn. */
const MORE = [
  { v: 7, type: "dice_rolled", player: 0, roll: [5, 2] },
  { v: 8, type: "turn_ended", player: 0, moves: [move(13, 8), move(13, 11)], play: "13/8 13/11" },
];

/** A controller on route `arg`, its feed holding `events`; the server answers
 *  `GET /api/games/ID` with `info` (null: refuses it with `error`). */
function setUp(arg, { events = EVENTS, info = INFO, error = null } = {}) {
  const asked = [];
  const saved = [];
  const remembered = [];
  const changed = [];
  const feed = { events: events.slice() };
  let options = { flip: false };
  const ctrl = new ReplayCtrl(arg, {
    api: async (method, path) => {
      asked.push(`${method} ${path}`);
      if (!info) throw error;
      return { info: structuredClone(info), game: null };
    },
    events: () => feed.events,
    options: () => options,
    saveOptions: (patch) => { saved.push(patch); options = { ...options, ...patch }; },
    remember: (hash) => remembered.push(hash),
    changed: (part) => changed.push(part),
  });
  return { ctrl, feed, asked, saved, remembered, changed };
}

/** The event version of the frame shown. */
const shownV = (ctrl) => ctrl.frames[ctrl.index].event.v;

describe("the replay's route", () => {
  test("names the match, the move to open at and a private match's key, which every link carries", () => {
    const { ctrl } = setUp("m1/4?key=a b");
    assert.equal(ctrl.id, "m1");
    assert.equal(ctrl.at, 4);
    assert.equal(ctrl.key, "a b");
    assert.deepEqual(ctrl.links, {
      mat: "/api/games/m1/export.mat?key=a%20b", sgf: "/api/games/m1/export.sgf?key=a%20b",
      live: "#/match/m1?key=a%20b", review: "#/review/m1?key=a%20b", fairness: "#/fairness/m1",
    });
    assert.equal(ctrl.moveHref(6), "#/replay/m1/6?key=a%20b");
  });

  test("a move that is not a number opens at the start; no key, no query", () => {
    const { ctrl } = setUp("m1/latest");
    assert.equal(ctrl.at, null);
    assert.equal(ctrl.key, null);
    assert.equal(ctrl.links.live, "#/match/m1");
  });
});

describe("a match replayed", () => {
  test("its info is asked with the key; then every event is a frame, the opening's repeated roll once", async () => {
    const { ctrl, asked, changed } = setUp("m1?key=k");
    await ctrl.start();
    assert.deepEqual(asked, ["GET /api/games/m1?key=k"]);
    assert.deepEqual(ctrl.frames.map((f) => f.event.v), [1, 2, 4, 5, 6]);
    assert.deepEqual(ctrl.frames.map((f) => f.board[5]), [0, 0, 2, 2, 2], "ann's two checkers made her 5 point");
    assert.deepEqual(ctrl.rows.map((r) => [r.kind, r.v]), [["game", 1], ["opening", 2], ["moves", 6]]);
    assert.equal(ctrl.players, "ann – …");
    assert.equal(ctrl.reviewable, false);
    assert.equal(ctrl.index, 0, "without a move in the route it opens at the start");
    assert.deepEqual(changed, ["frames"]);
  });

  test("the route's move is the frame first shown, and is not remembered again", async () => {
    const { ctrl, remembered } = setUp("m1/4");
    await ctrl.start();
    assert.equal(shownV(ctrl), 4);
    assert.deepEqual(remembered, []);
  });

  test("a replay at its last frame follows the match; one stepped back stays where it is", async () => {
    const { ctrl, feed } = setUp("m1/6");
    await ctrl.start();
    assert.equal(shownV(ctrl), 6);
    feed.events.push(...MORE);
    ctrl.load();
    assert.equal(shownV(ctrl), 8, "the new turn is shown");
    ctrl.shown(1); // the player stepped back (the stepper's buttons)
    feed.events.push({ v: 9, type: "dice_rolled", player: 1, roll: [4, 4] });
    ctrl.load();
    assert.equal(shownV(ctrl), 2);
  });

  test("a move picked in the list is shown and its address remembered", async () => {
    const { ctrl, remembered, changed } = setUp("m1?key=k");
    await ctrl.start();
    ctrl.jump(5);
    assert.equal(shownV(ctrl), 5);
    assert.deepEqual(remembered, ["#/replay/m1/5?key=k"]);
    assert.equal(changed.at(-1), "frame");
  });

  test("the events read before the info change nothing; the info then shows them", async () => {
    const { ctrl, changed } = setUp("m1");
    ctrl.load(); // the feed's state came first
    assert.deepEqual(ctrl.frames, []);
    assert.deepEqual(changed, []);
    await ctrl.start();
    assert.equal(ctrl.frames.length, 5);
  });

  test("a match with no events yet opens at the route's move once they come", async () => {
    const { ctrl, feed } = setUp("m1/4", { events: [] });
    await ctrl.start();
    assert.deepEqual(ctrl.frames, []);
    assert.equal(ctrl.loadedOnce, false);
    feed.events.push(...EVENTS);
    ctrl.load();
    assert.equal(shownV(ctrl), 4);
  });

  test("a finished match may be reviewed", async () => {
    const { ctrl } = setUp("m1", { info: { ...INFO, status: "finished" } });
    await ctrl.start();
    assert.equal(ctrl.reviewable, true);
  });

  test("an unknown match is said in the player's language, another refusal in the server's words", async () => {
    const unknown = setUp("m9", { info: null, error: Object.assign(new Error("no such game"), { status: 404 }) });
    await unknown.ctrl.start();
    assert.equal(unknown.ctrl.error, "replay.not_found");
    assert.deepEqual(unknown.changed, ["error"]);
    const down = setUp("m9", { info: null, error: Object.assign(new Error("database away"), { status: 503 }) });
    await down.ctrl.start();
    assert.equal(down.ctrl.error, "database away");
  });
});

describe("the way the board is drawn", () => {
  test("flip saves the player's option turned over; switching sides puts the other seat at the bottom", async () => {
    const { ctrl, saved, changed } = setUp("m1");
    await ctrl.start();
    ctrl.flip();
    ctrl.flip();
    assert.deepEqual(saved, [{ flip: true }, { flip: false }]);
    ctrl.switchSide();
    assert.equal(ctrl.bottom, 1);
    ctrl.switchSide();
    assert.equal(ctrl.bottom, 0);
    assert.deepEqual(changed, ["frames", "frame", "frame", "frame", "frame"]);
  });
});
