// The position explorer's controller (src/gammon/client/pages/explorer/ctrl.js) in Node, with
// no DOM: what it asks the server for a pasted position, the plays of a roll at a depth and a
// rollout, how it follows the rollout (a reading after each wait, none once it ended) and
// cancels it; what it holds after each answer. Run by tests/client/test_client_modules.py.

import assert from "node:assert/strict";
import { test } from "node:test";

import { ExplorerCtrl, POLL_MS } from "../../../src/gammon/client/pages/explorer/ctrl.js";

assert.equal(typeof document, "undefined", "the controller is tested without a DOM");

const START = { position_id: "4HPwATDgc/ABMA", match_id: null, dice: null, board: [] };
const PLAYS = [
  { play: "8/5 6/5", moves: [{ from: 8, to: 5, hit: false, text: "8/5" }], position_id: "a", equity: 0.2, ply: 1, probabilities: {} },
  { play: "24/23 13/10", moves: [], position_id: "b", equity: 0.01, ply: 1, probabilities: {} },
  { play: "13/10 6/5", moves: [], position_id: "c", equity: -0.02, ply: 1, probabilities: {} },
  { play: "24/21 6/5", moves: [], position_id: "d", equity: -0.05, ply: 1, probabilities: {} },
];
const rollout = (status, done) => ({ id: "r1", status, games: 3888, games_done: done, truncate: 0, seed: 1, error: "", plays: [] });

/** The controller over an HTTP stand-in that records what it is asked and a timer whose
 *  waits the test runs by hand. */
function explorer(answers) {
  const asked = [];
  const waits = [];
  const api = async (method, path, body) => {
    asked.push(body === undefined ? `${method} ${path}` : `${method} ${path} ${JSON.stringify(body)}`);
    const answer = path.startsWith("/api/explorer/choices") && !(`${method} ${path}` in answers)
      ? [] : answers[`${method} ${path}`];
    if (answer === undefined) throw Object.assign(new Error("not found"), { status: 404, code: "not_found" });
    return typeof answer === "function" ? answer(body) : structuredClone(answer);
  };
  const later = (fn, ms) => {
    const wait = { fn, ms, stopped: false };
    waits.push(wait);
    return () => { wait.stopped = true; };
  };
  const ctrl = new ExplorerCtrl({ api, changed: () => {}, later });
  return { ctrl, asked, waits };
}

test("a pasted position is read, its dice taken, and its plays ranked at the depth chosen", async () => {
  const SITE = { play: "24/23 13/10", times: 4, matches: 3, won: 1, points: -0.5 };
  const { ctrl, asked } = explorer({
    "POST /api/explorer/position": (body) => (body.text ? { ...START, match_id: "MIHlAAAAAAAE", dice: [5, 2] } : START),
    "POST /api/hint": { engine: "gammon", plies: 1, plays: PLAYS },
    "GET /api/explorer/choices?position_id=4HPwATDgc%2FABMA&dice=31": [SITE],
  });
  await ctrl.load("");
  assert.deepEqual(asked, ['POST /api/explorer/position {"text":""}',
    'POST /api/hint {"position_id":"4HPwATDgc/ABMA","dice":"31","plies":1}',
    "GET /api/explorer/choices?position_id=4HPwATDgc%2FABMA&dice=31"]);
  assert.deepEqual(ctrl.choices.get("24/23 13/10"), SITE);
  assert.equal(ctrl.choices.get("8/5 6/5"), undefined);
  assert.equal(ctrl.selected, 0);
  assert.deepEqual(ctrl.preview, { seat: 0, moves: PLAYS[0].moves, label: "8/5 6/5" });
  assert.ok(Math.abs(ctrl.behind(PLAYS[1]) - 0.19) < 1e-9);
  await ctrl.load("4HPwATDgc/ABMA:MIHlAAAAAAAE");
  assert.equal(asked.at(-2), 'POST /api/hint {"position_id":"4HPwATDgc/ABMA","dice":"52","plies":1,"match_id":"MIHlAAAAAAAE"}');
  await ctrl.setDice(1, 6);
  assert.equal(asked.at(-2), 'POST /api/hint {"position_id":"4HPwATDgc/ABMA","dice":"61","plies":1,"match_id":"MIHlAAAAAAAE"}');
  await ctrl.setPlies(2);
  assert.match(asked.at(-2), /"plies":2/);
  assert.equal(asked.at(-1), "GET /api/explorer/choices?position_id=4HPwATDgc%2FABMA&dice=61");
  ctrl.select(3);
  assert.equal(ctrl.preview?.label, "24/21 6/5");
  ctrl.select(9);
  assert.equal(ctrl.preview, null);
});

test("the best three are rolled out, followed while running, and cancelled", async () => {
  let readings = 0;
  const { ctrl, asked, waits } = explorer({
    "POST /api/explorer/position": START,
    "POST /api/hint": { engine: "gammon", plies: 1, plays: PLAYS },
    "POST /api/explorer/rollouts": rollout("running", 0),
    "GET /api/explorer/rollouts/r1": () => { readings += 1; return rollout("running", 216 * readings); },
    "DELETE /api/explorer/rollouts/r1": rollout("cancelled", 432),
  });
  await ctrl.load("");
  await ctrl.rollOut();
  assert.equal(asked.at(-1), 'POST /api/explorer/rollouts {"position_id":"4HPwATDgc/ABMA","dice":"31","plays":["8/5 6/5","24/23 13/10","13/10 6/5"],"games":1296,"truncate":0}');
  assert.equal(ctrl.running, true);
  assert.equal(waits.length, 1);
  assert.equal(waits[0].ms, POLL_MS);
  await ctrl.rollOut(); // one at a time: nothing asked
  assert.equal(asked.filter((a) => a.startsWith("POST /api/explorer/rollouts")).length, 1);
  await waits[0].fn();
  assert.equal(ctrl.rollout?.games_done, 216);
  assert.ok(Math.abs(ctrl.progress - 216 / 3888) < 1e-12);
  assert.equal(waits.length, 2);
  await ctrl.cancel();
  assert.equal(asked.at(-1), "DELETE /api/explorer/rollouts/r1");
  assert.equal(ctrl.rollout?.status, "cancelled");
  assert.equal(waits[1].stopped, true); // no reading once it ended
  assert.equal(waits.length, 2);
  ctrl.stop();
});

test("a refusal is said in the player's language where its reason is known", async () => {
  const { ctrl } = explorer({
    "POST /api/explorer/position": START,
    "POST /api/hint": () => { throw Object.assign(new Error("rated"), { code: "rated_match_live", status: 403 }); },
  });
  await ctrl.load("");
  assert.equal(ctrl.error, "explorer.rated_live");
  assert.deepEqual(ctrl.plays, []);
});
