// The type check's stand-in for match.js (tsconfig.json): a declaration file beside a module
// is what TypeScript reads for it, so match.js is left out of the check while it is split
// into the round's modules; delete this file when they join the check. app.js needs only
// the page class.
export class MatchPage {
  constructor(app: unknown, matchId: string);
  mount(main: HTMLElement): void;
  unmount(): void;
}
