// @ts-check
// replay.js — step through a finished (or running) match from its events.
//
// The server's events say what happened (PROTOCOL.md); this module only does the
// bookkeeping of putting the recorded moves on a board (rules.js's applyMove), never
// deciding what is legal. `matchFrames`,
// `frameState` and `frameAt` are what the replay and review pages share: the frames in
// words and a frame as board.js draws it; stepper.js's FrameStepper steps through them.

import { t } from "./i18n.js";
import { describeEvent, diceValues } from "./movelist.js";
import { applyMove, INITIAL } from "./rules.js";

/** @typedef {import("./wire.js").EventView} EventView
 *  @typedef {{values: number[], left: number[], seat: number}} FrameDice
 *  @typedef {{value: number, owner: number | null, enabled: boolean,
 *             offered: {by: number, value: number} | null}} FrameCube
 *  @typedef {{board: number[], dice: FrameDice | null, cube: FrameCube, score: number[],
 *             turn: number | null, game: number, crawford: boolean, event: EventView,
 *             caption: string}} Frame */

/** Frames of a match: [{board, dice, cube, score, turn, caption, game}] from its events.
 *  `describe(event, frame)` gives a frame's caption.
 *  @param {EventView[]} events
 *  @param {{length?: number, describe?: (event: EventView, frame: Frame) => string}} [options]
 *  @returns {Frame[]} */
export function buildFrames(events, { length = 1, describe = () => "" } = {}) {
  /** @type {Frame[]} */
  const frames = [];
  let board = INITIAL.slice();
  /** @type {FrameDice | null} */
  let dice = null;
  /** @type {FrameCube} */
  let cube = { value: 1, owner: null, enabled: true, offered: null };
  let score = [0, 0];
  /** @type {number | null} */
  let turn = null;
  let game = 0;
  let crawford = false;
  /** @param {EventView} event */
  const push = (event) => {
    /** @type {Frame} */
    const frame = { board: board.slice(), dice: dice && { ...dice }, cube: { ...cube }, score: [...score], turn, game, crawford, event, caption: "" };
    frame.caption = describe(event, frame);
    frames.push(frame);
  };
  for (const event of events) {
    switch (event.type) {
      case "game_started":
        board = INITIAL.slice();
        dice = null;
        game = event.number;
        crawford = event.crawford;
        cube = { value: 1, owner: null, enabled: !crawford && length !== 1, offered: null };
        turn = null;
        push(event);
        break;
      case "opening_rolled":
        turn = event.first;
        dice = { values: event.roll, left: event.roll, seat: event.first };
        push(event);
        break;
      case "dice_rolled": {
        const last = frames[frames.length - 1]?.event;
        turn = event.player;
        dice = { values: event.roll, left: event.roll, seat: event.player };
        // the opening's roll comes again as the first roll: one frame is enough
        if (!(last?.type === "opening_rolled" && last.roll.join() === event.roll.join())) push(event);
        break;
      }
      case "turn_ended": {
        for (const move of event.moves) {
          const next = applyMove(board, event.player, move);
          if (next) board = next;
        }
        if (dice) dice.left = [];
        push(event);
        turn = 1 - event.player;
        dice = null;
        break;
      }
      case "no_legal_move":
        push(event);
        break;
      case "cube_offered":
        cube = { ...cube, offered: { by: event.player, value: event.value } };
        push(event);
        break;
      case "cube_taken":
      case "cube_beavered":
        cube = { value: event.value, owner: event.player, enabled: true, offered: null };
        push(event);
        break;
      case "cube_dropped":
        cube = { ...cube, offered: null };
        push(event);
        break;
      case "resign_offered":
      case "resign_accepted":
      case "resign_rejected":
        push(event);
        break;
      case "game_ended":
        score = [...score];
        score[event.winner] += event.points;
        push(event);
        break;
      case "match_ended":
        score = [...event.score];
        push(event);
        break;
      default:
        break; // checker_moved / step_undone: the turn's final moves come with turn_ended
    }
  }
  return frames;
}

/** The frames of a match (`info`: its `GET /api/games/{id}` info) as the replay pages show
 *  them: each event in words, the cube off where the match plays without one. */
/** @param {EventView[]} events
 *  @param {import("./wire.js").InfoView} info
 *  @returns {Frame[]} */
export function matchFrames(events, info) {
  const name = (seat) => info.seats[seat]?.name ?? "?";
  const anew = info.winner_rolls_anew ?? null;
  const frames = buildFrames(events, {
    length: info.length,
    describe: (e) => describeEvent(e, events[events.indexOf(e) - 1], name, anew) || "",
  });
  if (!info.cube || info.kind === "single") for (const f of frames) f.cube.enabled = false;
  return frames;
}

/** The board state (board.js) of frame `f`: `bottom` the seat drawn at the bottom,
 *  `options` the player's (flip, numbering, graphics). */
/** @param {Frame} f
 *  @param {import("./wire.js").InfoView} info
 *  @param {{bottom?: number, options?: Partial<import("./wire.js").Options>, compact?: boolean}} [place] */
export function frameState(f, info, { bottom = 0, options = {}, compact = false } = {}) {
  return {
    board: f.board, bottom, flipped: !!options.flip, numbers: options.numbering !== false,
    quality: options.graphics, dice: f.dice && { ...f.dice, values: diceValues(f.dice.values, true) },
    roll: false, cube: f.cube, turn: f.turn,
    last: f.event.type === "turn_ended" ? { seat: f.event.player, moves: f.event.moves } : null,
    players: [0, 1].map((s) => ({ name: info.seats[s]?.name, rating: null, score: f.score[s], clock: null })),
    match: { length: info.length, crawford: f.crawford, label: info.length ? t("board.length", { count: info.length }) : t("board.money") },
    highlight: {}, compact,
  };
}

/** The index of the frame that shows the position after the event of version `v`. */
export function frameAt(frames, v) {
  let index = 0;
  frames.forEach((f, i) => { if ((f.event.v ?? 0) <= v) index = i; });
  return index;
}
