// The controllers of a player's pages (src/gammon/client/pages/account/ctrl.js) in Node,
// with no DOM: sign-in and registration, the leaderboard, a player's history and the
// options — what each asks the server, what it holds after each answer, what it tells the
// player and where it goes, over an HTTP stand-in that records what it is asked. Run by
// tests/client/test_client_modules.py (node --test).

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import {
  HistoryCtrl, LeaderboardCtrl, OptionsCtrl, SignInCtrl, signInRefusal,
} from "../../../src/gammon/client/pages/account/ctrl.js";

assert.equal(typeof document, "undefined", "the controllers are tested without a DOM");

const GUEST = { id: 7, name: "guest-7", kind: "guest", rating: 1500, experience: 0, bot: false };
const ANN = { id: 3, name: "ann", kind: "user", rating: 1612, experience: 40, bot: false };

/** An HTTP stand-in: each "METHOD path" of `answers` is answered (a function is called with
 *  the body: it may throw, a refusal); any other is a 404. What it was asked is in `asked`. */
function server(answers = {}) {
  const asked = [];
  const api = async (method, path, body) => {
    asked.push(body === undefined ? `${method} ${path}` : `${method} ${path} ${JSON.stringify(body)}`);
    const answer = answers[`${method} ${path}`];
    if (answer === undefined) throw Object.assign(new Error("not found"), { status: 404, code: "not_found" });
    return typeof answer === "function" ? answer(body) : structuredClone(answer);
  };
  return { api, asked };
}

const refused = (code, message = `the server says ${code}`) => () => { throw Object.assign(new Error(message), { code, status: 400 }); };

/** The sign-in page's controller for a guest; `answers` as server()'s. The session switch
 *  reads the player again as the app does (GET /api/me after the call, refused or not). */
function signIn(answers = {}, { me = GUEST } = {}) {
  const { api, asked } = server(answers);
  const said = [];
  const went = [];
  const changed = [];
  const switches = [];
  const state = { me, current: true, signedOut: 0 };
  const ctrl = new SignInCtrl({
    me: () => state.me, api,
    switchSession: async (call) => {
      switches.push("closed");
      try { return await call(); } finally { state.me = state.next ?? state.me; switches.push("reopened"); }
    },
    refreshMe: async () => { state.me = state.next ?? state.me; },
    signOut: async () => { state.signedOut += 1; },
    navigate: (hash) => went.push(hash),
    notify: (text, options) => said.push(options?.error ? `error: ${text}` : text),
    current: () => state.current,
    changed: (part) => changed.push(part),
  });
  return { ctrl, asked, said, went, changed, switches, state };
}

describe("signing in", () => {
  test("a sign-in asks the server within a session switch, welcomes the player and opens the lobby", async () => {
    const s = signIn({ "POST /api/login": () => { s.state.next = ANN; return { user: ANN }; } });
    await s.ctrl.submit("login", "ann", "correct horse");
    assert.deepEqual(s.asked, ['POST /api/login {"name":"ann","password":"correct horse"}']);
    assert.deepEqual(s.switches, ["closed", "reopened"]);
    assert.deepEqual(s.said, ["signin.welcome"]);
    assert.deepEqual(s.went, ["#/"]);
    assert.equal(s.ctrl.signedIn, "user");
  });

  test("a refusal whose reason is known is said in the player's language, in its form only", async () => {
    const s = signIn({ "POST /api/login": refused("bad_credentials"), "POST /api/register": refused("name_taken") });
    await s.ctrl.submit("login", "ann", "wrong");
    await s.ctrl.submit("register", "ann", "correct horse");
    assert.deepEqual(s.ctrl.errors, { login: "signin.bad_credentials", register: "signin.name_taken" });
    assert.deepEqual(s.changed, ["login", "register"], "only the forms' refusals are drawn again");
    assert.deepEqual(s.went, []);
    assert.deepEqual(s.said, []);
    assert.deepEqual(s.switches, ["closed", "reopened", "closed", "reopened"], "the socket opens again after a refusal");
  });

  test("each known reason has its own words; an unknown one is the server's", () => {
    for (const code of ["bad_credentials", "name_taken", "bad_name", "weak_password", "rate_limited"]) {
      assert.equal(signInRefusal({ code, message: "x" }), `signin.${code}`);
    }
    assert.equal(signInRefusal({ code: "http_500", message: "database away" }), "database away");
  });

  test("a new guest is asked for within a session switch, then the lobby opens", async () => {
    const s = signIn({ "POST /api/guest": () => { s.state.next = { ...GUEST, id: 8 }; return { user: s.state.next }; } });
    await s.ctrl.guest();
    assert.deepEqual(s.asked, ["POST /api/guest"]);
    assert.deepEqual(s.went, ["#/"]);
    assert.equal(s.state.me.id, 8);
  });

  test("another tab signed in meanwhile: the page is drawn again, its refusals gone", async () => {
    const s = signIn({ "POST /api/login": refused("bad_credentials") });
    await s.ctrl.submit("login", "ann", "wrong");
    s.state.next = ANN;
    s.ctrl.start();
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.deepEqual(s.changed, ["login", "account"]);
    assert.deepEqual(s.ctrl.errors, { login: "", register: "" });
    assert.equal(s.ctrl.signedIn, "user");
  });

  test("the same player read again, or the page left: nothing is drawn again", async () => {
    const same = signIn();
    same.ctrl.start();
    const left = signIn();
    left.state.next = ANN;
    left.state.current = false;
    left.ctrl.start();
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.deepEqual(same.changed, []);
    assert.deepEqual(left.changed, []);
  });

  test("who is signed in: a registered player, a guest, or no one yet", () => {
    assert.equal(signIn({}, { me: ANN }).ctrl.signedIn, "user");
    assert.equal(signIn({}, { me: GUEST }).ctrl.signedIn, "guest");
    assert.equal(signIn({}, { me: null }).ctrl.signedIn, "none");
  });

  test("signing out is the app's", async () => {
    const s = signIn({}, { me: ANN });
    await s.ctrl.signOut();
    assert.equal(s.state.signedOut, 1);
  });
});

describe("the leaderboard", () => {
  test("the players by rating are asked, and the signed-in player's row is known", async () => {
    const rows = [{ ...ANN, rank: 1 }, { id: 4, name: "bob", kind: "user", rating: 1500, experience: 3, bot: false, rank: 2 }];
    const { api, asked } = server({ "GET /api/leaderboard": rows });
    let changes = 0;
    const ctrl = new LeaderboardCtrl({ me: () => ANN, api, changed: () => { changes += 1; } });
    assert.equal(ctrl.rows, null);
    await ctrl.load();
    assert.deepEqual(asked, ["GET /api/leaderboard"]);
    assert.deepEqual(ctrl.rows?.map((r) => r.name), ["ann", "bob"]);
    assert.deepEqual(ctrl.rows?.map((r) => ctrl.isMe(r)), [true, false]);
    assert.equal(changes, 1);
  });

  test("a refusal is held in the server's words", async () => {
    const { api } = server({ "GET /api/leaderboard": refused("http_503", "database away") });
    const ctrl = new LeaderboardCtrl({ me: () => GUEST, api, changed: () => {} });
    await ctrl.load();
    assert.equal(ctrl.rows, null);
    assert.equal(ctrl.error, "database away");
  });
});

const CONFIG = { kind: "match", length: 3, cube: true, clock: "none", bot: null, jacoby: false, beavers: false, winner_rolls_anew: false, private: false, clock_scale: 1 };
/** A match of the history: `players` by seat, `winner` and the score once it is over. */
function entry(id, status, players, { winner = null, score = null } = {}) {
  return { id, status, config: CONFIG, players, winner, result: score ? { winner, reason: "points", score } : null, rated: true, created_at: 1_700_000_000, finished_at: null };
}

describe("a player's history", () => {
  test("the route's player is asked, by an encoded name; no name, the signed-in player", async () => {
    const { api, asked } = server({ "GET /api/users/J%C3%B3%20ann/history": [], "GET /api/users/ann/history": [] });
    const named = new HistoryCtrl("Jó ann", { me: () => ANN, api, changed: () => {} });
    await named.load();
    const mine = new HistoryCtrl("", { me: () => ANN, api, changed: () => {} });
    await mine.load();
    assert.deepEqual(asked, ["GET /api/users/J%C3%B3%20ann/history", "GET /api/users/ann/history"]);
    assert.equal(mine.name, "ann");
    assert.deepEqual(mine.rows, []);
  });

  test("a match over reads won or lost and the score from the player's seat, and offers its review and dice", () => {
    const ctrl = new HistoryCtrl("ann", { me: () => GUEST, api: server().api, changed: () => {} });
    const won = ctrl.line(entry("m1", "finished", ["bob", "ann"], { winner: 1, score: [1, 3] }));
    assert.equal(won.result, "history.won 1–3");
    assert.equal(won.players, "bob – ann");
    assert.deepEqual([won.resume, won.replay, won.review, won.mat, won.sgf, won.dice],
      [null, "#/replay/m1", "#/review/m1", "/api/games/m1/export.mat", "/api/games/m1/export.sgf", "#/fairness/m1"]);
    assert.equal(ctrl.line(entry("m2", "finished", ["ann", "bob"], { winner: 1, score: [0, 3] })).result, "history.lost 0–3");
  });

  test("a match of others names its winner", () => {
    const ctrl = new HistoryCtrl("ann", { me: () => ANN, api: server().api, changed: () => {} });
    assert.equal(ctrl.line(entry("m3", "finished", ["bob", "cy"], { winner: 0, score: [3, 2] })).result, "bob 3–2");
  });

  test("a match in play may be resumed, not reviewed; an open one has nothing to download yet", () => {
    const ctrl = new HistoryCtrl("ann", { me: () => ANN, api: server().api, changed: () => {} });
    const playing = ctrl.line(entry("m4", "playing", ["ann", "bob"]));
    assert.equal(playing.result, "history.status_playing");
    assert.deepEqual([playing.resume, playing.review, playing.dice], ["#/match/m4", null, null]);
    assert.equal(playing.mat, "/api/games/m4/export.mat");
    const open = ctrl.line(entry("m5", "open", ["ann", null]));
    assert.equal(open.players, "ann – …");
    assert.deepEqual([open.resume, open.mat, open.sgf], ["#/match/m5", null, null]);
    const cancelled = ctrl.line(entry("m6", "cancelled", ["ann", "bob"]));
    assert.deepEqual([cancelled.result, cancelled.resume, cancelled.review], ["history.status_cancelled", null, null]);
  });

  test("an unknown player is said in the player's language; another refusal in the server's words", async () => {
    const unknown = new HistoryCtrl("nobody", { me: () => ANN, api: server().api, changed: () => {} });
    await unknown.load();
    assert.equal(unknown.error, "history.no_player");
    const { api } = server({ "GET /api/users/ann/history": refused("http_503", "database away") });
    const down = new HistoryCtrl("ann", { me: () => ANN, api, changed: () => {} });
    await down.load();
    assert.equal(down.error, "database away");
  });
});

describe("the options", () => {
  /** The options page's controller over the player's `options`; what it did, in order. */
  function setUp(options, lang = "en") {
    const did = [];
    const state = { lang };
    const ctrl = new OptionsCtrl({
      options: () => options,
      saveOptions: async (patch) => { did.push(`saved ${JSON.stringify(patch)}`); },
      language: () => state.lang,
      setLanguage: async (next) => { state.lang = next; did.push(`language ${next}`); },
      languageChanged: () => did.push("drawn again"),
      notify: (text) => did.push(`said ${text}`),
    });
    return { ctrl, did };
  }

  test("the form's boxes are saved on when ticked and off when not, with the graphics and the language", () => {
    const { ctrl } = setUp({});
    const form = { confirm_turn: "on", flip: "on", graphics: "low", language: "it" };
    assert.deepEqual(ctrl.fromForm((name) => form[name] ?? null), {
      confirm_turn: true, auto_roll: false, auto_bearoff: false, tap_longest: false, flip: true,
      numbering: false, sound: false, graphics: "low", language: "it",
    });
  });

  test("saved in the same language: stored, then said", async () => {
    const { ctrl, did } = setUp({ sound: true });
    await ctrl.save({ sound: false, language: "en" });
    assert.deepEqual(did, ['saved {"sound":false,"language":"en"}', "said options.saved"]);
  });

  test("a new language is set and the page drawn in it before the saving is said", async () => {
    const { ctrl, did } = setUp({}, "en");
    await ctrl.save({ language: "pl" });
    assert.deepEqual(did, ['saved {"language":"pl"}', "language pl", "drawn again", "said options.saved"]);
    assert.equal(ctrl.language, "pl");
  });
});
