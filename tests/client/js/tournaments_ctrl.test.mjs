// The tournaments' controllers (src/gammon/client/pages/tournaments/ctrl.js) in Node, with no
// DOM: the route's id and invite key, the new tournament's body from the form's strings, the
// list read, a creation opening the tournament's page (a private one with its key), a
// tournament's detail read again with nothing drawn when nothing changed, the actions and
// who may take them, the knockout bracket with the rounds to come, the matches in play and an
// arena's streaks, the chat (who writes, a line sent, the lines new since those drawn). Run by tests/client/test_client_modules.py (node --test).

import assert from "node:assert/strict";
import { test } from "node:test";

import { chatAdded, newTournament, parseRoute, refusal, TournamentCtrl, TournamentsCtrl }
  from "../../../src/gammon/client/pages/tournaments/ctrl.js";

assert.equal(typeof document, "undefined", "the controller is tested without a DOM");

const ANN = { id: 7, name: "ann", kind: "user", rating: 1500, experience: 0, bot: false };
const BOB = { id: 9, name: "bob", kind: "guest", rating: 1500, experience: 0, bot: false };

function tournament(over = {}) {
  return { id: "Tk1", name: "Friday cup", format: "knockout", length: 3, clock: "none", rated: false,
    private: false, starts_at: null, max_players: 8, rounds: null, duration: null, state: "registering",
    round: 0, organiser: "ann", players: 0, no_show: 180, stall: 900, created_at: 1, started_at: null, ends_at: null,
    finished_at: null, ...over };
}

const entry = (id, name) => ({ id, name, rating: 1500, withdrawn: false });
const pairing = (board, first, second, over = {}) => ({ board, first, second, match: `m${board}`, winner: null,
  reason: null, made_at: 1, finished_at: null, ...over });

test("the route's id and invite key", () => {
  assert.deepEqual(parseRoute("Tk1"), { id: "Tk1", key: "" });
  assert.deepEqual(parseRoute("Tk1?key=a-b_c"), { id: "Tk1", key: "a-b_c" });
});

test("the new tournament's body: rounds for a Swiss only, an arena's minutes in seconds", () => {
  const form = { name: " Cup ", format: "swiss", length: "5", clock: "italian", max_players: "16", rounds: "4",
    duration: "30", starts_at: "", rated: true, private: false };
  assert.deepEqual(newTournament(form), { name: "Cup", format: "swiss", length: 5, clock: "italian", rated: true,
    private: false, max_players: 16, starts_at: null, rounds: 4, duration: null });
  const arena = newTournament({ ...form, format: "arena" });
  assert.equal(arena.rounds, null);
  assert.equal(arena.duration, 1800);
  assert.equal(newTournament({ ...form, format: "knockout" }).duration, null);
  const at = newTournament({ ...form, starts_at: "2030-01-02T10:30" }).starts_at;
  assert.equal(at, new Date("2030-01-02T10:30").getTime() / 1000);
});

test("a refusal is said in the player's language when its code is known", () => {
  assert.equal(refusal({ code: "tournament_full", message: "full" }), "tournament.error_tournament_full");
  assert.equal(refusal({ code: "bad_input", message: "name: too short" }), "name: too short");
});

test("the list read; a creation opens the tournament's page, a private one with its key", async () => {
  const asked = [];
  const went = [];
  const ctrl = new TournamentsCtrl({
    me: () => ANN, changed: () => {}, navigate: (hash) => went.push(hash),
    api: async (method, path, body) => {
      asked.push([method, path, body]);
      if (method === "GET") return { upcoming: [tournament()], running: [], finished: [] };
      return { tournament: tournament({ id: "Pv2", private: true }), entries: [], rounds: [], standings: [],
        invite: "/#/tournament/Pv2?key=s3cr-t" };
    },
  });
  assert.equal(ctrl.mayCreate, true);
  await ctrl.load();
  assert.equal(ctrl.list?.upcoming[0].id, "Tk1");
  assert.equal(await ctrl.create({ name: "Cup", format: "knockout", private: true }), true);
  assert.equal(asked[1][0], "POST");
  assert.equal(asked[1][1], "/api/tournaments");
  assert.equal(asked[1][2].private, true);
  assert.deepEqual(went, ["#/tournaments/Pv2?key=s3cr-t"]);
});

test("a guest may not organise; a refused creation says why", async () => {
  const ctrl = new TournamentsCtrl({
    me: () => BOB, changed: () => {}, navigate: () => assert.fail("no page to open"),
    api: async () => { throw Object.assign(new Error("sign in"), { status: 401, code: "unauthenticated" }); },
  });
  assert.equal(ctrl.mayCreate, false);
  assert.equal(await ctrl.create({ name: "Cup", format: "knockout" }), false);
  assert.equal(ctrl.error, "tournament.error_unauthenticated");
});

test("a tournament read again draws only what changed; the actions and who may take them", async () => {
  let detail = { tournament: tournament({ players: 1 }), entries: [entry(7, "ann")], rounds: [], standings: [], invite: null };
  const asked = [];
  let drawn = 0;
  let me = ANN;
  const ctrl = new TournamentCtrl("Tk1?key=k", {
    me: () => me, changed: () => { drawn += 1; },
    api: async (method, path, body) => {
      asked.push(`${method} ${path}${body ? " " + JSON.stringify(body) : ""}`);
      if (path.includes("/register") && !body) {
        detail = { ...detail, tournament: tournament({ players: 2 }), entries: [entry(7, "ann"), entry(9, "bob")] };
      }
      return detail;
    },
  });
  await ctrl.load();
  await ctrl.load();
  assert.equal(drawn, 1, "nothing new: nothing drawn");
  assert.equal(ctrl.live, true);
  assert.equal(ctrl.isOrganiser, true);
  assert.equal(ctrl.entered, true);
  assert.equal(ctrl.mayRegister, false);
  assert.equal(ctrl.mayWithdraw, true);
  assert.equal(ctrl.mayStart, true);
  assert.equal(ctrl.csvHref, "/api/tournaments/Tk1/results.csv?key=k");
  await ctrl.addBot(3);
  me = BOB;
  assert.equal(ctrl.isOrganiser, false);
  assert.equal(ctrl.mayStart, false);
  assert.equal(ctrl.mayRegister, true);
  assert.equal(await ctrl.register(), true);
  assert.equal(ctrl.entered, true);
  assert.deepEqual(asked, ["GET /api/tournaments/Tk1?key=k", "GET /api/tournaments/Tk1?key=k",
    'POST /api/tournaments/Tk1/register?key=k {"bot":3}', "POST /api/tournaments/Tk1/register?key=k"]);
});

test("a refused action says why and keeps the tournament", async () => {
  const detail = { tournament: tournament({ players: 1 }), entries: [entry(7, "ann")], rounds: [], standings: [], invite: null };
  const ctrl = new TournamentCtrl("Tk1", {
    me: () => ANN, changed: () => {},
    api: async (method) => {
      if (method === "GET") return detail;
      throw Object.assign(new Error("two"), { status: 409, code: "not_enough_players" });
    },
  });
  await ctrl.load();
  assert.equal(await ctrl.start(), false);
  assert.equal(ctrl.error, "tournament.error_not_enough_players");
  assert.equal(ctrl.tournament?.players, 1);
});

test("a knockout's bracket: the rounds played, the rounds to come, the winner's side", async () => {
  const entries = [entry(1, "a"), entry(2, "b"), entry(3, "c"), entry(4, "d"), entry(5, "e")];
  const detail = {
    tournament: tournament({ state: "running", round: 2, players: 5 }), entries, standings: [], invite: null,
    rounds: [
      { round: 1, pairings: [pairing(0, 1, null, { match: null, winner: 1, reason: "bye" }), pairing(1, 4, 5, { winner: 5 }),
        pairing(2, 2, null, { match: null, winner: 2, reason: "bye" }), pairing(3, 3, null, { match: null, winner: 3, reason: "bye" })] },
      { round: 2, pairings: [pairing(0, 1, 5), pairing(1, 2, 3, { winner: 2 })] },
    ],
  };
  const ctrl = new TournamentCtrl("Tk1", { me: () => ({ ...ANN, id: 5 }), changed: () => {}, api: async () => detail });
  await ctrl.load();
  const columns = ctrl.bracket();
  assert.deepEqual(columns.map((c) => [c.round, c.slots.length, c.paired]), [[1, 4, true], [2, 2, true], [3, 1, false]]);
  assert.deepEqual(columns[0].slots[1], { board: 1, first: { id: 4, name: "d" }, second: { id: 5, name: "e" },
    match: "m1", winner: 1, reason: null, pending: false });
  assert.equal(columns[0].slots[0].second, null);
  assert.equal(columns[1].slots[1].winner, 0);
  assert.deepEqual(ctrl.inPlay().map((s) => s.match), ["m0"]);
  assert.equal(ctrl.myMatch, "m0");
  assert.equal(ctrl.mine(ctrl.inPlay()[0]), true);
  assert.equal(ctrl.champion, null);
});

test("an arena's streaks: wins in a row since the last loss, byes and walkovers not counted", async () => {
  const detail = {
    tournament: tournament({ format: "arena", state: "finished", duration: 600 }),
    entries: [entry(1, "a"), entry(2, "b"), entry(3, "c")],
    standings: [{ place: 1, id: 1, name: "a", points: 8, played: 3, won: 3, buchholz: null, sonneborn_berger: null, rating: 1500, withdrawn: false }],
    invite: null,
    rounds: [
      { round: 1, pairings: [pairing(0, 1, 2, { winner: 1 })] },
      { round: 2, pairings: [pairing(0, 1, 3, { winner: 1 }), pairing(1, 2, null, { match: null, winner: 2, reason: "bye" })] },
      { round: 3, pairings: [pairing(0, 1, 2, { winner: 1 }), pairing(1, 3, 2, { match: null, winner: 3, reason: "walkover" })] },
    ],
  };
  const ctrl = new TournamentCtrl("Tk1", { me: () => ANN, changed: () => {}, api: async () => detail });
  await ctrl.load();
  assert.deepEqual([...ctrl.streaks()].sort(), [[1, 3], [2, 0], [3, 0]]);
  assert.equal(ctrl.live, false);
  assert.equal(ctrl.champion, "a");
  assert.equal(ctrl.mayWithdraw, false);
});

test("a failed read again keeps the last one (the next read tries again)", async () => {
  let fail = false;
  const detail = { tournament: tournament(), entries: [], rounds: [], standings: [], invite: null };
  const ctrl = new TournamentCtrl("Tk1", { me: () => ANN, changed: () => {},
    api: async () => { if (fail) throw Object.assign(new Error("busy"), { status: 503, code: "busy" }); return detail; } });
  await ctrl.load();
  fail = true;
  await ctrl.load();
  assert.equal(ctrl.error, "");
  assert.equal(ctrl.tournament?.id, "Tk1");
  assert.equal(ctrl.live, true);
});

test("the chat: its players write (a blank line is not sent), the lines new since those drawn", async () => {
  const line = (at, text) => ({ from: "ann", text, at });
  let detail = { tournament: tournament({ players: 1 }), entries: [entry(9, "bob")], rounds: [], standings: [],
    invite: null, chat: [] };
  const asked = [];
  let me = ANN;
  const ctrl = new TournamentCtrl("Tk1", {
    me: () => me, changed: () => {},
    api: async (method, path, body) => {
      asked.push(`${method} ${path}${body ? " " + JSON.stringify(body) : ""}`);
      if (method === "POST") detail = { ...detail, chat: [...detail.chat, line(detail.chat.length, body.text)] };
      return detail;
    },
  });
  await ctrl.load();
  assert.equal(ctrl.mayChat, true, "the organiser");
  assert.equal(await ctrl.say("   "), false);
  assert.equal(await ctrl.say("  hello "), true);
  assert.deepEqual(ctrl.chat, [line(0, "hello")]);
  assert.deepEqual(asked, ["GET /api/tournaments/Tk1", 'POST /api/tournaments/Tk1/chat {"text":"hello"}']);
  me = BOB;
  assert.equal(ctrl.mayChat, true, "an entrant");
  me = { ...BOB, id: 11, name: "cleo" };
  assert.equal(ctrl.mayChat, false, "a spectator");

  const lines = [line(1, "a"), line(2, "b"), line(3, "c")];
  const first = chatAdded([], lines.slice(0, 2));
  assert.deepEqual([first.reset, first.added], [false, lines.slice(0, 2)]);
  const next = chatAdded(first.keys, lines);
  assert.deepEqual([next.reset, next.added], [false, [lines[2]]], "only the new line");
  assert.deepEqual(chatAdded(next.keys, lines).added, [], "nothing new");
  const gone = chatAdded(first.keys, [line(9, "z")]);
  assert.deepEqual([gone.reset, gone.added], [true, [line(9, "z")]], "the last drawn is gone: all again");
});
