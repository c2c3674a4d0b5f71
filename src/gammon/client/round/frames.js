// @ts-check
// round/frames.js — the live board's frames: what the others did, shown one step at a time
// (each throw of the opening, their roll, each checker they move) at the pace of the
// graphics option, before the board settles on the server's latest state. No DOM: a frame
// is data, the controller draws it through its redraw callback.

import { feedbackOf, reduceFeedback } from "../movelist.js";
import { applyMove, INITIAL } from "../rules.js";

/** How long each animation frame stays (ms), by the graphics option: an opponent's checker
 *  slides one at a time (high: with a glide; low: a quick jump). */
export const PACE = {
  high: { move: 420, roll: 550, opening: 900, game: 1100, own: 0 },
  low: { move: 160, roll: 250, opening: 450, game: 500, own: 0 },
};

/** @typedef {{move: number, roll: number, opening: number, game: number, own: number}} Pace */
/** @typedef {"start" | "move" | "own" | "roll" | "opening" | "game"} FrameKind */
/** A frame on the live board: the board (player 0's view), the feedback (movelist.js's
 *  last move, last dice), its kind and, for an opening throw, the throw.
 *  @typedef {{board: readonly number[], fb: any, kind: FrameKind, throw?: {dice: number[], tie: boolean}}} LiveFrame */

export class FrameQueue {
  /**
   * @param {{pace: () => Pace, onFrame: (frame: LiveFrame) => void, onEnd: () => void}} how
   *   `onFrame`: a frame is on screen now; `onEnd`: the last one went, the board is the
   *   server's again.
   */
  constructor({ pace, onFrame, onEnd }) {
    this.pace = pace;
    this.onFrame = onFrame;
    this.onEnd = onEnd;
    /** @type {LiveFrame[]} frames still to show */
    this.frames = [];
    /** @type {LiveFrame | null} the frame on screen while frames play */
    this.frame = null;
    /** @type {{kind: FrameKind, pause: number}[]} the frames shown lately (the browser tests read it) */
    this.paced = [];
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
  }

  get animating() {
    return this.frame !== null;
  }

  /** Forget the frames (a full state came: the board is the server's at once). */
  clear() {
    this.frames = [];
    this.frame = null;
    clearTimeout(this.timer);
  }

  stop() {
    clearTimeout(this.timer);
  }

  /** Queue the frames of `events` (fresh from the server) from the board `before` them.
   *  `you`: the viewer's seat (their own steps are not slowed); `anew`: the match's "winner
   *  rolls anew" rule; `all`: every event held (the fresh ones last); `current`: the
   *  feedback of them all.
   *  @param {readonly number[] | null} before @param {any[]} events
   *  @param {{you: number | null, anew: boolean | null, all: any[], current: any}} facts */
  queue(before, events, { you, anew, all, current }) {
    if (!before || !events.length) return;
    let fb = all.length >= events.length && all[all.length - 1] === events[events.length - 1]
      ? feedbackOf(all.slice(0, all.length - events.length), anew) : current;
    let board = before.slice();
    if (this.frame) {
      // more news while frames play: they follow the frames still queued
      const tail = this.frames.length ? this.frames[this.frames.length - 1] : this.frame;
      fb = tail.fb;
      board = tail.board.slice();
    }
    const frames = this.frames.slice();
    let shows = false;
    let prev = null;
    for (const e of events) {
      fb = reduceFeedback(fb, e, anew);
      const theirs = e.player !== you;
      if (e.type === "checker_moved" || e.type === "step_undone") {
        const next = applyMove(board, e.player, e.move, { reverse: e.type === "step_undone" });
        if (!next) return; // not what we hold: just show the server's board
        board = next;
        frames.push({ board, fb, kind: theirs ? "move" : "own" });
        shows ||= theirs;
      } else if (e.type === "dice_rolled" && theirs && !(prev?.type === "opening_rolled")) {
        frames.push({ board, fb, kind: "roll" });
        shows = true;
      } else if (e.type === "opening_rolled") {
        for (const pair of e.throws) frames.push({ board, fb, kind: "opening", throw: { dice: pair, tie: pair[0] === pair[1] } });
        shows = true;
      } else if (e.type === "game_started" && (frames.length || this.frame)) {
        board = INITIAL.slice();
        frames.push({ board, fb, kind: "game" });
      }
      prev = e;
    }
    if (!shows) return;
    this.frames = frames;
    if (!this.frame) {
      this.frame = { board: before, fb: current, kind: "start" };
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.next(), 60);
    }
  }

  next() {
    const frame = this.frames.shift();
    if (!frame) {
      this.frame = null;
      this.onEnd();
      return;
    }
    this.frame = frame;
    // the pace follows the graphics option of the moment
    const pause = this.pace()[/** @type {keyof Pace} */ (frame.kind)] ?? 0;
    this.paced.push({ kind: frame.kind, pause });
    if (this.paced.length > 80) this.paced.shift();
    this.onFrame(frame);
    this.timer = setTimeout(() => this.next(), pause);
  }
}
