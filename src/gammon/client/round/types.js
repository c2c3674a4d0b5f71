// @ts-check
// round/types.js — what the match page's controller is handed: the live feed, the HTTP API,
// the redraw callback and the effects (the page's; none in a test).

/** @typedef {(method: string, path: string, body?: unknown) => Promise<any>} Api */
/** @typedef {"dice" | "checker" | "turn" | "end" | "alarm"} Sound */
/** What the page does for the controller: sounds, the announcer, toasts, navigation, the
 *  signed-in player read again, `answered` (the server answered: a checker held where it
 *  was dropped may settle) and `callBack` (a player away from the tab called back to it:
 *  attention.js).
 *  @typedef {{sound: (name: Sound) => void, announce: (text: string) => void,
 *    toast: (text: string, error?: boolean) => void, navigate: (hash: string) => void,
 *    refreshMe: () => void, answered: () => void, callBack: (text: string) => void}} Effects */
/** How to redraw: `instant` without the board's transitions; `settled` the state settled
 *  (a dialog the state asks for may open).
 *  @typedef {{instant?: boolean, settled?: boolean}} Redraw */
/** The feed as the controller reads it (net.js's MatchFeed).
 *  @typedef {{v: number | null, info: any, game: any, you: number | null, clock: any,
 *    clockAt: number, events: any[], chat: any[], socket: {status?: string},
 *    act: (type: string, fields?: Record<string, unknown>) => number | null,
 *    backfill: () => void, addEventListener: EventTarget["addEventListener"],
 *    removeEventListener: EventTarget["removeEventListener"]}} Feed */
/** @type {Effects} */
export const NO_EFFECTS = { sound() {}, announce() {}, toast() {}, navigate() {}, refreshMe() {}, answered() {}, callBack() {} };

