// A player's profile's controller (src/gammon/client/pages/profile/ctrl.js) in Node, with no
// DOM: the graphs' lines (the lowest value at the bottom, the highest at the top, evenly
// spaced; a flat line in the middle), the rating's line from 1500, the mean error rate, the
// tournaments' rows (a place in a finished one, the state before), and what it asks the
// server. Run by tests/client/test_client_modules.py (node --test).

import assert from "node:assert/strict";
import { test } from "node:test";

import { graph, ProfileCtrl, tournamentRow } from "../../../src/gammon/client/pages/profile/ctrl.js";

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
    results: [], opponents: [], tournaments: [],
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

test("the tournaments as rows: the place among the entrants once finished, else the state", async () => {
  const finished = { id: "a/b", name: "Cup", format: "swiss", state: "finished", finished_at: 100,
    place: 2, entrants: 8, withdrawn: false };
  assert.deepEqual(tournamentRow(finished), { id: "a/b", name: "Cup", href: "#/tournaments/a%2Fb",
    format: "tournament.format_swiss", place: "profile.place_of", finishedAt: 100 });
  const running = { ...finished, state: "running", finished_at: null, place: null, entrants: null, withdrawn: true };
  assert.equal(tournamentRow(running).place, "tournament.state_running · tournament.withdrawn");
  assert.equal(tournamentRow(running).finishedAt, null);
  const ctrl = new ProfileCtrl("ann", { me: () => null, changed: () => {}, api: async () => ({
    user: { id: 3, name: "ann", kind: "user", rating: 1500, experience: 0, bot: false },
    ratings: [], error_rates: [], results: [], opponents: [], tournaments: [running, finished],
  }) });
  assert.deepEqual(ctrl.tournaments, []); // nothing read yet
  await ctrl.load();
  assert.deepEqual(ctrl.tournaments.map((r) => r.id), ["a/b", "a/b"]);
  assert.deepEqual(ctrl.tournaments.map((r) => r.place.split(" ")[0]), ["tournament.state_running", "profile.place_of"]);
});
