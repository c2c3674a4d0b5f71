// The puzzle page's controller (src/gammon/client/pages/puzzles/ctrl.js) in Node, with no
// DOM: what it asks the server for a puzzle, for each step of the roll played on the board
// (the rules stay the server's: the stand-in answers as the server would) and for the
// answer; what it holds after each answer and what it lights; a refused step leaves the
// board as it was. Run by tests/client/test_client_modules.py (node --test).

import assert from "node:assert/strict";
import { test } from "node:test";

import { PuzzleCtrl, THEMES } from "../../../src/gammon/client/pages/puzzles/ctrl.js";

assert.equal(typeof document, "undefined", "the controller is tested without a DOM");

const INITIAL = [0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0];
const CONTEXT = { length: 7, score: [2, 4], cube: 2, cube_owner: "you", crawford: false, jacoby: false };
const CHECKER = { id: 17, kind: "checker", position_id: "4HPwATDgc/ABMA", match_id: "x", board: INITIAL,
  dice: [3, 1], choices: [], context: CONTEXT, themes: ["opening"], rating: 1500, attempts: 0, solved: 0 };
const TAKE = { ...CHECKER, id: 18, kind: "take", dice: null, choices: ["take", "drop"], themes: ["take-point"] };
const RATING = { rating: 1500, rd: 350, attempts: 0, solved: 0 };

/** What the server answers for the steps of 3-1 from the start (gammon.server.puzzles
 *  .play_steps gives the same for these): nothing moved, 8/5 alone, 8/5 6/5 whole. */
function stepsAnswer(steps) {
  const key = steps.map((s) => `${s.from}:${s.die}`).join(" ");
  if (key === "") {
    return { board: INITIAL, dice_left: [3, 1], play: null,
      legal: { 24: { 3: 21, 1: 23 }, 13: { 3: 10 }, 8: { 3: 5, 1: 7 }, 6: { 3: 3, 1: 5 } },
      reach: { 24: { 21: [3], 20: [3, 1], 23: [1] }, 13: { 10: [3], 9: [3, 1] }, 8: { 5: [3], 4: [3, 1], 7: [1] }, 6: { 3: [3], 2: [3, 1], 5: [1] } } };
  }
  if (key === "8:3") {
    const board = INITIAL.slice(); board[8] = 2; board[5] = 1;
    return { board, dice_left: [1], play: null, legal: { 24: { 1: 23 }, 8: { 1: 7 }, 6: { 1: 5 }, 5: { 1: 4 } },
      reach: { 24: { 23: [1] }, 8: { 7: [1] }, 6: { 5: [1] }, 5: { 4: [1] } } };
  }
  if (key === "8:3 6:1") {
    const board = INITIAL.slice(); board[8] = 2; board[6] = 4; board[5] = 2;
    return { board, dice_left: [], play: "8/5 6/5", legal: {}, reach: {} };
  }
  if (key === "24:3 21:1") {
    const board = INITIAL.slice(); board[24] = 1; board[20] = 1;
    return { board, dice_left: [], play: "24/20", legal: {}, reach: {} };
  }
  throw Object.assign(new Error(`a step the rules refuse: ${key}`), { code: "illegal_answer", status: 422 });
}

/** The controller (`how`: its options) over an HTTP stand-in that records what it is asked
 *  (a function answer is called with the body; any other request is a 404). */
function puzzlePage(answers, id = "", how = {}) {
  const asked = [];
  let redraws = 0;
  const api = async (method, path, body) => {
    asked.push(body === undefined ? `${method} ${path}` : `${method} ${path} ${JSON.stringify(body)}`);
    const answer = answers[`${method} ${path}`];
    if (answer === undefined) throw Object.assign(new Error("not found"), { status: 404, code: "not_found" });
    return typeof answer === "function" ? answer(body) : structuredClone(answer);
  };
  const ctrl = new PuzzleCtrl(id, { api, changed: () => { redraws += 1; } }, how);
  return { ctrl, asked, redraws: () => redraws };
}

const VERDICT = { puzzle: 17, answer: "8/5 6/5", right: true, error: 0, graded_by: "2-ply", best: "8/5 6/5",
  top: [{ answer: "8/5 6/5", equity: 0.2 }, { answer: "24/23 13/10", equity: 0 }], source: null,
  rating: { rating: 1662.5, rd: 290, attempts: 1, solved: 1 },
  rating_change: { before: 1500, after: 1662.5 }, puzzle_rating: { before: 1500, after: 1337.5 } };

const checkerServer = (extra = {}) => ({
  "GET /api/puzzles/next": { puzzle: CHECKER, rating: RATING },
  "POST /api/puzzles/17/steps": (body) => stepsAnswer(body.steps),
  ...extra,
});

test("the next puzzle comes with the player's rating and its board, nothing moved yet", async () => {
  const { ctrl, asked } = puzzlePage(checkerServer());
  await ctrl.start();
  assert.deepEqual(asked, ["GET /api/puzzles/next", 'POST /api/puzzles/17/steps {"steps":[]}']);
  assert.equal(ctrl.puzzle?.id, 17);
  assert.deepEqual(ctrl.rating, RATING);
  assert.deepEqual(ctrl.board, INITIAL);
  assert.deepEqual(ctrl.sources.sort((a, b) => a - b), [6, 8, 13, 24]);
  assert.equal(ctrl.play, null);
  assert.equal(ctrl.question, "puzzle.ask_play");
});

test("a checker picked lights its targets; a lit target moves it there, step by step", async () => {
  const { ctrl, asked } = puzzlePage(checkerServer({ "POST /api/puzzles/17/answer": VERDICT }));
  await ctrl.start();
  await ctrl.click(8);
  assert.equal(ctrl.selected, 8);
  assert.deepEqual([...ctrl.reachOf(8).keys()].sort((a, b) => a - b), [4, 5, 7]);
  await ctrl.click(8); // the same again: dropped
  assert.equal(ctrl.selected, null);
  await ctrl.click(3); // no checker that can move: nothing picked
  assert.equal(ctrl.selected, null);
  await ctrl.click(8);
  await ctrl.click(5);
  assert.equal(asked.at(-1), 'POST /api/puzzles/17/steps {"steps":[{"from":8,"die":3}]}');
  assert.equal(ctrl.selected, null);
  assert.deepEqual(ctrl.moves?.dice_left, [1]);
  assert.equal(ctrl.play, null);
  await ctrl.submit(); // not whole yet: nothing sent
  assert.equal(asked.at(-1), 'POST /api/puzzles/17/steps {"steps":[{"from":8,"die":3}]}');
  await ctrl.click(6);
  await ctrl.click(5);
  assert.equal(ctrl.play, "8/5 6/5");
  assert.deepEqual(ctrl.sources, []); // the roll is played whole
  await ctrl.submit();
  assert.equal(asked.at(-1), 'POST /api/puzzles/17/answer {"play":"8/5 6/5"}');
  assert.equal(ctrl.verdict?.right, true);
  assert.deepEqual(ctrl.rating, VERDICT.rating);
  assert.equal(ctrl.moving, false);
  await ctrl.click(24); // answered: the board no longer moves
  assert.equal(ctrl.selected, null);
});

test("a move over two dice is sent as its steps; undo takes back the last", async () => {
  const { ctrl, asked } = puzzlePage(checkerServer());
  await ctrl.start();
  await ctrl.click(24);
  await ctrl.click(20);
  assert.equal(asked.at(-1), 'POST /api/puzzles/17/steps {"steps":[{"from":24,"die":3},{"from":21,"die":1}]}');
  assert.equal(ctrl.play, "24/20");
  await ctrl.undo();
  assert.equal(asked.at(-1), 'POST /api/puzzles/17/steps {"steps":[{"from":24,"die":3}]}');
  // the stand-in refuses that board (it knows 8/5 alone): the steps and board stay as they were
  assert.equal(ctrl.error, "a step the rules refuse: 24:3");
  assert.equal(ctrl.play, "24/20");
  assert.equal(ctrl.steps.length, 2);
});

test("a cube question is answered by its choices, and a wrong answer says so", async () => {
  const wrong = { ...VERDICT, puzzle: 18, answer: "drop", right: false, error: 1.21, best: "take",
    top: [{ answer: "take", equity: 0.21 }, { answer: "drop", equity: -1 }] };
  const { ctrl, asked } = puzzlePage({ "GET /api/puzzles/18": TAKE, "POST /api/puzzles/18/answer": wrong }, "18");
  await ctrl.start();
  assert.deepEqual(asked, ["GET /api/puzzles/18"]); // no board to play on
  assert.equal(ctrl.question, "puzzle.ask_take");
  assert.equal(ctrl.moving, false);
  await ctrl.submit(); // no play to send
  await ctrl.choose("drop");
  assert.deepEqual(asked.slice(1), ['POST /api/puzzles/18/answer {"cube":"drop"}']);
  assert.equal(ctrl.verdict?.right, false);
  await ctrl.choose("take"); // answered once
  assert.equal(asked.length, 2);
});

test("a theme asked narrows the next puzzle; none left says so in the player's language", async () => {
  const { ctrl, asked } = puzzlePage({});
  await ctrl.next("bear-off");
  assert.deepEqual(asked, ["GET /api/puzzles/next?theme=bear-off"]);
  assert.equal(ctrl.puzzle, null);
  assert.equal(ctrl.error, "puzzle.not_found");
  const none = puzzlePage({ "GET /api/puzzles/next?theme=race": () => {
    throw Object.assign(new Error("no puzzle left"), { code: "no_puzzle", status: 404 });
  } });
  await none.ctrl.next("race");
  assert.equal(none.ctrl.exhausted, true);
  assert.equal(none.ctrl.error, "puzzle.none_left");
  assert.equal(none.ctrl.theme, "race");
  assert.ok(THEMES.includes("race") && THEMES.includes("gammon-save"));
});

test("the context reads the match's score as points needed, and the cube's owner", async () => {
  const { ctrl } = puzzlePage(checkerServer());
  await ctrl.start();
  assert.equal(ctrl.context, "puzzle.match · puzzle.cube_you");
});

test("the deck's most overdue card, its review scheduled again and the deck read anew", async () => {
  const DECK = { cards: 2, due: 1, next_due: null, streak: 0, reviewed_today: 0, themes: [] };
  const after = { ...DECK, due: 0, next_due: 2000, streak: 1, reviewed_today: 1 };
  const review = { puzzle: 18, answer: "take", right: true, error: 0, graded_by: "2-ply", best: "take",
    top: [{ answer: "take", equity: 0.21 }, { answer: "drop", equity: -1 }], due: 2000, deck: after };
  const { ctrl, asked } = puzzlePage({
    "GET /api/deck": DECK,
    "GET /api/deck/next": { puzzle: TAKE, deck: DECK },
    "POST /api/deck/18/review": review,
  }, "18", { deck: true });
  await ctrl.start();
  assert.deepEqual(asked, ["GET /api/deck", "GET /api/deck/next"]); // the route's id is not asked
  assert.equal(ctrl.puzzle?.id, 18);
  await ctrl.choose("take");
  assert.equal(asked.at(-1), 'POST /api/deck/18/review {"cube":"take"}');
  assert.deepEqual(ctrl.deck, after);
  assert.equal(ctrl.rating, null); // the deck moves no rating
});

test("the puzzle of the day, from the route #/puzzles/daily", async () => {
  const { ctrl, asked } = puzzlePage(checkerServer({
    "GET /api/puzzles/daily": { date: "2026-12-06", puzzle: CHECKER, rating: RATING },
  }), "daily");
  await ctrl.start();
  assert.deepEqual(asked, ["GET /api/puzzles/daily", 'POST /api/puzzles/17/steps {"steps":[]}']);
  assert.equal(ctrl.dailyDate, "2026-12-06");
  await ctrl.next();
  assert.equal(ctrl.dailyDate, ""); // the next one is no longer the day's
});
