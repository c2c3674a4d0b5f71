// The lobby's controller (src/gammon/client/pages/lobby/ctrl.js) in Node, with no DOM: the
// socket's challenges messages in, what it tells the player and where it goes out, over an
// HTTP stand-in that records what it is asked. Run by tests/client/test_client_modules.py
// (node --test).

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { LobbyCtrl } from "../../../src/gammon/client/pages/lobby/ctrl.js";

assert.equal(typeof document, "undefined", "the controller is tested without a DOM");

/** A controller for player `me`; the server answers `GET /api/games/ID` with `status`
 *  and refuses the requests in `refused` ("METHOD path"). */
function setUp({ status = "playing", refused = [], open = true } = {}) {
  const said = [];
  const went = [];
  const asked = [];
  const changed = [];
  const sent = [];
  const called = [];
  const ctrl = new LobbyCtrl({
    me: () => ({ id: "u1", kind: "user", name: "ann" }),
    api: async (method, path) => {
      asked.push(`${method} ${path}`);
      if (refused.includes(`${method} ${path}`)) throw Object.assign(new Error("refused"), { code: "conflict" });
      return method === "GET" ? { info: { status } } : {};
    },
    navigate: (hash) => went.push(hash),
    notify: (text, options) => said.push(options?.error ? `error: ${text}` : text),
    callBack: (text) => called.push(text),
    current: () => true,
    changed: (part) => changed.push(part),
    send: (message) => (open ? (sent.push(message), sent.length) : null),
  });
  return { ctrl, said, went, asked, changed, sent, called };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
const BOB = { id: "g1", creator: { name: "bob" }, opponent: { name: "cy" } };

describe("the lobby's challenges", () => {
  test("the first message tells nothing; a challenge new after it is told", () => {
    const { ctrl, said, changed, called } = setUp();
    ctrl.setChallenges({ received: [BOB], sent: [] });
    assert.deepEqual(said, []);
    ctrl.setChallenges({ received: [BOB, { id: "g2", creator: { name: "dee" } }], sent: [] });
    assert.deepEqual(said, ["lobby.challenged_by"]);
    assert.deepEqual(called, ["lobby.challenged_by"]); // a player away from the tab is called back
    assert.deepEqual(changed, ["challenges", "challenges"]);
  });

  test("one of this player's taken opens the match; one declined is told", async () => {
    const taken = setUp({ status: "playing" });
    taken.ctrl.setChallenges({ received: [], sent: [BOB] });
    taken.ctrl.setChallenges({ received: [], sent: [] });
    await settle();
    assert.deepEqual(taken.went, ["#/match/g1"]);
    const declined = setUp({ status: "cancelled" });
    declined.ctrl.setChallenges({ received: [], sent: [BOB] });
    declined.ctrl.setChallenges({ received: [], sent: [] });
    await settle();
    assert.deepEqual(declined.went, []);
    assert.deepEqual(declined.said, ["lobby.challenge_declined"]);
  });

  test("one withdrawn here goes without a word of a decline", async () => {
    const { ctrl, said, asked } = setUp({ status: "cancelled" });
    ctrl.setChallenges({ received: [], sent: [BOB] });
    assert.equal(await ctrl.withdraw(BOB), true);
    ctrl.setChallenges({ received: [], sent: [] });
    await settle();
    assert.deepEqual(asked, ["DELETE /api/games/g1"]);
    assert.deepEqual(said, ["lobby.withdrawn"]);
  });

  test("a withdrawal refused (taken meanwhile) leaves it waiting; gone, its match opens", async () => {
    const { ctrl, said, went } = setUp({ status: "playing", refused: ["DELETE /api/games/g1"] });
    ctrl.setChallenges({ received: [], sent: [BOB] });
    assert.equal(await ctrl.withdraw(BOB), false);
    assert.deepEqual(said, ["error: refused"]);
    assert.deepEqual(went, []);
    ctrl.setChallenges({ received: [], sent: [] });
    await settle();
    assert.deepEqual(went, ["#/match/g1"]);
  });
});

describe("a game made in the lobby", () => {
  test("a challenge is told and stays; another game opens at its invite", async () => {
    const { ctrl, said, went, asked } = setUp();
    ctrl.deps.api = async (method, path, body) => { asked.push(`${method} ${path} ${body.length}`); return { invite: "/#/match/g9" }; };
    await ctrl.create({ kind: "single", length: 7, opponent: "bob" });
    await ctrl.create({ kind: "match", length: 7 });
    assert.deepEqual(asked, ["POST /api/games 1", "POST /api/games 7"]);
    assert.deepEqual(said, ["lobby.challenge_sent"]);
    assert.deepEqual(went, ["#/match/g9"]);
  });

  test("a refusal is said in the player's language where its reason is known", () => {
    const { ctrl } = setUp();
    assert.equal(ctrl.refusal({ code: "too_many_games", message: "x" }), "error.too_many_games");
    assert.equal(ctrl.refusal({ code: "not_found", message: "x" }, "bob"), "lobby.error_no_player");
    assert.equal(ctrl.refusal({ code: "not_found", message: "no such game" }), "no such game");
  });
});

describe("Play now", () => {
  const SEEK = { kind: "match", length: 5, clock: "none", rated: true, bot: null, bot_after: null, since: 1000 };

  test("the choices become one seek message: no length but a match's, money never rated", () => {
    const { ctrl, sent } = setUp();
    assert.equal(ctrl.playNow({ kind: "match", length: 7, clock: "polish", rated: true }), true);
    ctrl.playNow({ kind: "money", length: 7, clock: "none", rated: true, bot: 2, bot_after: 30 });
    ctrl.playNow({ kind: "single", length: 5, clock: "italian", rated: false, bot: 3, bot_after: null });
    assert.deepEqual(sent, [
      { type: "seek", kind: "match", length: 7, clock: "polish", rated: true },
      { type: "seek", kind: "money", length: 1, clock: "none", rated: false, bot: 2, bot_after: 30 },
      { type: "seek", kind: "single", length: 1, clock: "italian", rated: false },
    ]);
  });

  test("waiting, then paired: the match opens, and a player away from the tab is called back", () => {
    const { ctrl, went, changed, called } = setUp();
    ctrl.setSeeking(SEEK);
    assert.equal(ctrl.seek, SEEK);
    ctrl.paired("m7");
    assert.deepEqual(went, ["#/match/m7"]);
    assert.deepEqual(called, ["attention.match_ready"]);
    assert.equal(ctrl.seek, null);
    assert.deepEqual(changed, ["seek"]);
  });

  test("leaving the page while waiting leaves the pool; not waiting, nothing is sent", () => {
    const idle = setUp();
    idle.ctrl.setSeeking(null);
    idle.ctrl.leave();
    assert.deepEqual(idle.sent, []);
    const waiting = setUp();
    waiting.ctrl.setSeeking(SEEK);
    waiting.ctrl.leave();
    assert.deepEqual(waiting.sent, [{ type: "unseek" }]);
  });

  test("a refusal of this page's seek is said in the player's language; others are not its", () => {
    const { ctrl, said } = setUp();
    ctrl.playNow({ kind: "match", length: 4, clock: "none", rated: false });
    assert.equal(ctrl.refused({ code: "bad_pool", message: "length: ...", id: 99 }), false);
    assert.equal(ctrl.refused({ code: "bad_pool", message: "length: ...", id: 1 }), true);
    ctrl.cancelSeek();
    ctrl.refused({ code: "internal", message: "the server could not", id: 2 });
    assert.deepEqual(said, ["error: lobby.play_now_bad_pool", "error: the server could not"]);
    assert.equal(ctrl.refused({ code: "bad_pool", message: "again", id: 1 }), false); // once
  });

  test("the socket away: nothing sent, the player told", () => {
    const { ctrl, said, sent } = setUp({ open: false });
    assert.equal(ctrl.playNow({ kind: "money", length: 1, clock: "none", rated: false }), false);
    assert.deepEqual(sent, []);
    assert.deepEqual(said, ["error: error.offline"]);
  });

  test("the count of the pool chosen", () => {
    const { ctrl } = setUp();
    assert.equal(ctrl.waitingIn({ kind: "single", length: 3, clock: "none", rated: false }), 0);
    ctrl.setPools([{ kind: "single", length: 1, clock: "none", rated: false, waiting: 2 },
      { kind: "match", length: 5, clock: "none", rated: true, waiting: 1 }]);
    assert.equal(ctrl.waitingIn({ kind: "single", length: 3, clock: "none", rated: false }), 2);
    assert.equal(ctrl.waitingIn({ kind: "match", length: 5, clock: "none", rated: false }), 0);
    assert.equal(ctrl.waitingIn({ kind: "match", length: 5, clock: "none", rated: true }), 1);
  });
});
