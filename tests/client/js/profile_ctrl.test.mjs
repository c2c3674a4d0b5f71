// A player's profile's controller (src/gammon/client/pages/profile/ctrl.js) in Node, with no
// DOM: the graphs' lines (the lowest value at the bottom, the highest at the top, evenly
// spaced; a flat line in the middle), the rating's line from 1500, the mean error rate, and
// what it asks the server. Run by tests/client/test_client_modules.py (node --test).

import assert from "node:assert/strict";
import { test } from "node:test";

import { graph, ProfileCtrl } from "../../../src/gammon/client/pages/profile/ctrl.js";

assert.equal(typeof document, "undefined", "the controller is tested without a DOM");

test("a graph's line spans its box: lowest at the bottom, highest at the top", () => {
  assert.equal(graph([], 100, 50), null);
  assert.deepEqual(graph([3, 1, 2], 100, 50), { points: "0.0,0.0 50.0,50.0 100.0,25.0", low: 1, high: 3, last: 2, count: 3 });
  assert.equal(graph([7, 7], 10, 20)?.points, "0.0,10.0 10.0,10.0");
  assert.equal(graph([5], 10, 20)?.points, "0.0,10.0");
});

test("the profile read, the rating's line from 1500 and the mean error rate", async () => {
  const asked = [];
  const profile = {
    user: { id: 3, name: "ann b", kind: "user", rating: 1519.4, experience: 3, bot: false },
    ratings: [{ match: "a", at: 1, rating: 1516.2 }, { match: "b", at: 2, rating: 1531 }],
    error_rates: [{ match: "c", at: 3, error_rate: 8, plies: 1 }, { match: "d", at: 4, error_rate: 5, plies: 2 }],
    results: [], opponents: [],
  };
  const ctrl = new ProfileCtrl("ann b", {
    me: () => null, changed: () => {},
    api: async (method, path) => { asked.push(`${method} ${path}`); return profile; },
  });
  await ctrl.load();
  assert.deepEqual(asked, ["GET /api/users/ann%20b/profile"]);
  assert.equal(ctrl.ratingGraph(100, 10)?.count, 3);
  assert.equal(ctrl.ratingGraph(100, 10)?.low, 1500);
  assert.equal(ctrl.errorGraph(100, 10)?.last, 5);
  assert.equal(ctrl.meanErrorRate, 6.5);
});

test("an unknown player is said so in the player's language", async () => {
  const ctrl = new ProfileCtrl("", {
    me: () => ({ id: 1, name: "me", kind: "guest", rating: 1500, experience: 0, bot: false }), changed: () => {},
    api: async () => { throw Object.assign(new Error("no such player"), { status: 404, code: "not_found" }); },
  });
  assert.equal(ctrl.name, "me"); // no name in the route: the signed-in player
  await ctrl.load();
  assert.equal(ctrl.error, "history.no_player");
  assert.equal(ctrl.ratingGraph(10, 10), null);
  assert.equal(ctrl.meanErrorRate, null);
});
