// The wire's types: every message, view and HTTP body the server and the browser client
// exchange (PROTOCOL.md). GENERATED from the server's JSON schemas (gammon.server.protocol,
// gammon.views) by
//     PYTHONPATH=src python scripts/make_wire_types.py
// Do not edit: tests/client/test_wire_types.py fails when this file differs from what the
// script writes. The client's modules name these types in JSDoc; the browser never loads
// this file.

/** Every message the server sends on the socket (its `type` tells which). */
export type ServerMessage = WelcomeMessage | StateMessage | UpdateMessage | ChatLine | MutedMessage | RematchMessage | CancelledMessage | LobbyMessage | ChallengesMessage | SeekingMessage | PairedMessage | PoolsMessage | AnalysisMessage | ServerPing | ServerPong | ErrorMessage;

/** Every message a client may send on the socket. */
export type ClientMessage = SubscribeMessage | UnsubscribeMessage | RollMessage | PlayMessage | StepMessage | SimpleActionMessage | ResignMessage | ChatMessage | MuteMessage | LobbyFeedMessage | SeekMessage | UnseekMessage | PingMessage | PongMessage;

/** Every event of an `update`, with `v`, its number in the match's event log. */
export type EventView = GameStartedView | OpeningRolledView | DiceRolledView | CheckerMovedView | StepUndoneView | NoLegalMoveView | TurnEndedView | CubeEventView | ResignEventView | GameEndedView | MatchEndedView | ClockPausedView;

/** The answer of each kind of HTTP request (PROTOCOL.md). */
export interface Responses {
  me: MeResponse;
  user: UserResponse;
  ok: OkResponse;
  logout_all: LogoutAllResponse;
  open_games: OpenGame[];
  sent_challenges: SentChallenge[];
  created: CreatedGame;
  state: GameState;
  info: InfoView;
  fairness: FairnessRecord;
  history: HistoryEntry[];
  ratings: RatingsResponse;
  leaderboard: LeaderboardEntry[];
  dice_stats: DiceStats;
  hint: HintView;
  eval: EvalView;
  ready: ReadyResponse;
  token: CreatedToken;
  tokens: TokenView[];
  puzzle: PuzzleView;
  next_puzzle: NextPuzzleView;
  daily_puzzle: DailyPuzzleView;
  puzzle_verdict: PuzzleVerdictView;
  puzzle_steps: PuzzleStepsView;
  deck: DeckView;
  deck_next: DeckNextView;
  deck_review: DeckReviewView;
  explorer_position: ExplorerPositionView;
  rollout: RolloutView;
  choices: ChoiceView[];
  profile: ProfileView;
  tournaments: TournamentListView;
  tournament: TournamentDetailView;
}

/** The body of each kind of HTTP request a client sends. */
export interface Requests {
  credentials: Credentials;
  options: Options;
  new_game: NewGame;
  join: Join;
  new_token: NewToken;
  hint: HintRequest;
  eval: EvalRequest;
  puzzle_answer: PuzzleAnswer;
  new_tournament: NewTournament;
  tournament_entry: TournamentEntry;
}

/** One cube decision, rated (:class:`gammon.engine.analysis.CubeRecord`). */
export interface AnalysedCubeView {
  game: number;
  move_number: number;
  player: number;
  position_id: string;
  chosen: string;
  proper: string;
  loss: number;
  match_id: string;
  mark: "" | "?" | "??";
}

/** One checker play, rated (:class:`gammon.engine.analysis.CheckerDecision`). */
export interface AnalysedPlayView {
  game: number;
  move_number: number;
  player: number;
  position_id: string;
  roll: string;
  played: string;
  best: string;
  played_equity: number;
  best_equity: number;
  forced: boolean;
  luck: number;
  win_chance: number;
  match_id: string;
  graded_by: string;
  match_winning_chance: number | null;
  loss: number;
  mark: "" | "?" | "??";
}

/**
 * Where the post-match analysis of a watched match stands
 * (:mod:`gammon.server.analysis_worker`): ``done`` of ``total`` games analysed.
 */
export interface AnalysisMessage {
  type: "analysis";
  match: string;
  plies: number;
  status: "queued" | "running" | "done" | "failed";
  done: number;
  total: number;
}

/** One player's summary of :class:`gammon.engine.analysis.PlayerSummary`. */
export interface AnalysisPlayerView {
  player: number;
  name: string;
  decisions: number;
  unforced: number;
  cube_decisions: number;
  errors: number;
  blunders: number;
  equity_lost: number;
  luck: number;
  error_rate_mp: number;
  performance_rating: number;
}

/**
 * The analysis of a match: ``gammon analyze --format json``, and ``GET
 * /api/games/{id}/analysis`` once it is done.
 */
export interface AnalysisView {
  names: string[];
  plies: number;
  players: AnalysisPlayerView[];
  decisions: AnalysedPlayView[];
  cube_decisions: AnalysedCubeView[];
}

export interface CancelledMessage {
  type: "cancelled";
  match: string;
}

/**
 * The open games reserved for the socket's player (``received``, as ``GET
 * /api/challenges``) and those they made for another (``sent``, as ``GET
 * /api/challenges/sent``), to a socket following the lobby.
 */
export interface ChallengesMessage {
  type: "challenges";
  received: OpenGame[];
  sent: SentChallenge[];
}

export interface ChatLine {
  type: "chat";
  match: string;
  seat: number;
  from: string;
  text: string;
  at: number;
}

export interface ChatMessage {
  id?: number | string | null;
  match: string;
  v?: number | null;
  type: "chat";
  text: string;
}

export interface CheckerMovedView {
  type: "checker_moved";
  player: number;
  move: MoveView;
  die: number;
  v: number;
}

/**
 * A play the site's players chose in a position and roll (public matches): how often,
 * in how many matches, how many of its games its player won, and its mean points there.
 */
export interface ChoiceView {
  play: string;
  times: number;
  matches: number;
  won: number;
  points: number;
}

/** The choices of a :class:`MatchConfig` that both its views show. */
export interface ChoicesView {
  kind: "single" | "money" | "match";
  length: number;
  cube: boolean;
  clock: "none" | "italian" | "italian_per_point" | "polish";
  bot: number | null;
  jacoby: boolean;
  beavers: boolean;
  winner_rolls_anew: boolean;
  private: boolean;
}

/** Not a core event: the server's downtime credited to the running clock. */
export interface ClockPausedView {
  type: "clock_paused";
  player: number | null;
  seconds: number;
  v: number;
}

export interface ClockSideView {
  action_left: number;
  bank_left: number;
  low: boolean;
  expired: boolean;
}

/** A match clock: ``flag_at`` is the server time the running side loses at. */
export interface ClockView {
  kind: "none" | "italian" | "italian_per_point" | "polish";
  running: number | null;
  sides: ClockSideView[];
  flag_at: number | null;
  low_at: number | null;
}

/** What a match's creator chose (stored with the match; in the lobby and history). */
export interface ConfigView extends ChoicesView {
  clock_scale: number;
}

export interface CreatedGame extends InfoView {
  invite: string;
}

export interface CreatedToken extends TokenView {
  token: string;
}

export interface Credentials {
  name: string;
  password: string;
}

/** The side on roll's cube action before it rolls. */
export interface CubeDecisionView {
  action: "no-double" | "double-take" | "double-pass" | "too-good-take" | "too-good-pass";
  player: number;
  equities: DecisionEquities;
  mwc?: DecisionMwc;
  response: "take" | "pass" | "beaver" | null;
  cube_available: boolean;
  reason: string | null;
  probabilities: OutcomesView;
  take_point: number | null;
  ply: number | null;
  efficiency: number;
  cube: string;
}

export interface CubeEventView {
  type: "cube_offered" | "cube_taken" | "cube_beavered" | "cube_dropped";
  player: number;
  value: number;
  v: number;
}

export interface CubeStateView {
  value: number;
  owner: number | null;
  enabled: boolean;
}

/**
 * ``GET /api/puzzles/daily``: the day (UTC, ``YYYY-MM-DD``), its puzzle and the
 * player's rating.
 */
export interface DailyPuzzleView {
  date: string;
  puzzle: PuzzleView;
  rating: PuzzleRatingView;
}

export interface DecisionEquities {
  no_double: number | null;
  double_take?: number | null;
  double_pass?: number | null;
  double_beaver?: number | null;
}

export interface DecisionMwc {
  no_double: number | null;
  double_take?: number | null;
  double_pass?: number | null;
}

/** ``GET /api/deck/next``: the most overdue card's puzzle, and the deck. */
export interface DeckNextView {
  puzzle: PuzzleView;
  deck: DeckView;
}

/**
 * A card reviewed: the answer graded as a puzzle's is, when the card is due again, and
 * the deck.
 */
export interface DeckReviewView extends GradedAnswerView {
  due: number;
  deck: DeckView;
}

/**
 * A theme of a player's deck: its cards, those due now, and the reviews of them with
 * the right answers among them.
 */
export interface DeckThemeView {
  theme: string;
  cards: number;
  due: number;
  reviews: number;
  right: number;
}

/**
 * A player's deck of their own mistakes (:mod:`gammon.server.deck`): its cards, those
 * due now, when the next one falls due (seconds since the epoch; null when none waits),
 * the streak of days with a review, today's reviews, and each theme.
 */
export interface DeckView {
  cards: number;
  due: number;
  next_due: number | null;
  streak: number;
  reviewed_today: number;
  themes: DeckThemeView[];
}

export interface DiceRolledView {
  type: "dice_rolled";
  player: number;
  roll: number[];
  v: number;
}

/** Each face's count, the dice in all, and each roll's count (``"31"``: higher first). */
export interface DiceStats {
  faces: number[];
  dice: number;
  rolls: { [key: string]: number };
}

/**
 * A refused message (nothing changed): ``id`` is the message's (null when it had none;
 * absent when the parser could not read a valid one), ``match`` and ``v`` the match it
 * names and the version the match is at.
 */
export interface ErrorMessage {
  type: "error";
  code: "malformed" | "too_large" | "unknown_type" | "not_found" | "not_a_player" | "not_your_turn" | "illegal" | "not_started" | "stale" | "time_out" | "rate_limited" | "busy" | "internal" | "unauthenticated" | "bad_token" | "bad_pool" | "not_eligible" | "already_seeking" | "not_seeking" | "too_many_subscriptions";
  message: string;
  reason?: "wrong_phase" | "game_over" | "cube_unavailable" | "resign_not_allowed" | "illegal_move" | "not_allowed";
  id?: number | string | null;
  match?: string;
  v?: number;
}

/**
 * A player's error rate in a finished match (millipoints per unforced decision, at the
 * depth of its deepest analysis).
 */
export interface ErrorRatePointView {
  match: string;
  at: number;
  error_rate: number;
  plies: number;
}

export interface EvalRequest {
  position_id: string;
  match_id?: string | null;
  plies?: number;
  beavers?: boolean;
}

/** ``POST /api/eval``: the side on roll's chances before it rolls. */
export interface EvalView {
  engine: string;
  plies: number;
  position_id: string;
  probabilities: ProbabilitiesView;
  equity: number;
  pips: number[];
  pip_lead: number;
  race: boolean;
  cube?: CubeDecisionView | TakeDecisionView | ResignDecisionView;
}

/**
 * ``POST /api/explorer/position``: a position pasted (a Position ID, with its Match ID
 * after a colon, or an XGID), as the explorer takes it: the Position ID seen from the side
 * on roll, the Match ID of the decision (null for money without one), the dice (null when
 * not rolled) and the board as the match page draws it, the side on roll as player 0.
 */
export interface ExplorerPositionView {
  position_id: string;
  match_id: string | null;
  dice: number[] | null;
  board: number[];
}

/**
 * The dice commitment, the dice actions and, once the match is over, the seed and what
 * checking every die found (``problems``: empty when every die is what the seeds give).
 */
export interface FairnessRecord {
  match: string;
  seed_hash: string;
  client_seeds: string[];
  winner_rolls_anew: boolean;
  server_seed: string | null;
  actions: (OpeningRecord | RollRecord)[];
  problems?: string[];
}

export interface GameEndedView {
  type: "game_ended";
  winner: number;
  points: number;
  kind: "single" | "gammon" | "backgammon" | "drop" | "resign" | "abandon" | "timeout";
  level: number;
  cube: number;
  v: number;
}

export interface GameStartedView {
  type: "game_started";
  number: number;
  crawford: boolean;
  v: number;
}

/** ``GET /api/games/{id}``: a ``state``; the match's players also get the ``invite``. */
export interface GameState extends StateMessage {
  invite?: string;
}

/**
 * The ``game`` of ``state`` and ``update`` (PROTOCOL.md); ``can_confirm`` and
 * ``can_undo`` only while moving, ``legal`` and ``reach`` (:class:`MovesView`) only while
 * moving and only to the player on turn; ``match_id`` the GNU Backgammon Match ID of the
 * decision the game waits for (:func:`gammon.formats.match_id.match_key`: what the engine's
 * ``/api/hint`` and ``/api/eval`` take), null when no one decides.
 */
export interface GameView {
  phase: "opening" | "before_roll" | "moving" | "cube_offered" | "resign_offered" | "game_over" | "match_over";
  game: number;
  turn: number;
  score: number[];
  length: number;
  crawford: boolean;
  cube: CubeStateView;
  board: number[];
  position_id: string;
  dice: number[] | null;
  dice_left: number[];
  resign_offer: ResignOfferView | null;
  winner: number | null;
  can_double: boolean;
  can_beaver: boolean;
  resign_floor: number;
  match_id: string | null;
  legal?: { [key: string]: { [key: string]: number } };
  reach?: { [key: string]: { [key: string]: number[] } };
  can_confirm?: boolean;
  can_undo?: boolean;
}

/**
 * An answer to a puzzle or a card, graded: ``error`` what it loses to the best (0 when
 * right), graded by ``graded_by``; ``top`` the graded answers, best first.
 */
export interface GradedAnswerView {
  puzzle: number;
  answer: string;
  right: boolean;
  error: number;
  graded_by: string;
  best: string;
  top: PuzzleAnswerView[];
}

/** The finished matches against one opponent, and how many the player won. */
export interface HeadToHeadView {
  opponent: string;
  played: number;
  won: number;
}

export interface HintRequest {
  position_id: string;
  dice: string;
  plies?: number;
  match_id?: string | null;
}

/** ``POST /api/hint``: every legal play, best first. */
export interface HintView {
  engine: string;
  plies: number;
  plays: RankedPlayView[];
}

export interface HistoryEntry {
  id: string;
  status: "open" | "playing" | "finished" | "cancelled";
  config: ConfigView;
  players: (string | null)[];
  winner: number | null;
  result: ResultView | null;
  rated: boolean;
  created_at: number;
  finished_at: number | null;
}

/**
 * A match's ``info`` (``state``, ``GET /api/games/{id}``, the lobby's answers): its
 * choices as played (``length`` 0 in money, ``jacoby`` and ``beavers`` only there).
 */
export interface InfoView extends ChoicesView {
  id: string;
  status: "open" | "playing" | "finished" | "cancelled";
  rated: boolean;
  seats: (SeatView | null)[];
  seed_hash: string;
  client_seeds: string[];
  server_seed: string | null;
  rematch_of: string | null;
  result: ResultView | null;
}

export interface Join {
  client_seed?: string;
}

export interface LeaderboardEntry extends UserView {
  rank: number;
}

export interface LobbyFeedMessage {
  id?: number | string | null;
  type: "subscribe_lobby" | "unsubscribe_lobby";
}

/** The open public games (as ``GET /api/games``), to a socket following the lobby. */
export interface LobbyMessage {
  type: "lobby";
  games: OpenGame[];
}

export interface LogoutAllResponse {
  ok: true;
  revoked: number;
}

export interface MatchEndedView {
  type: "match_ended";
  winner: number;
  reason: "points" | "abandon" | "timeout";
  score: number[];
  v: number;
}

export interface MeResponse {
  user: UserView;
  options: Options;
}

export interface MoveView {
  from: number;
  to: number;
  hit: boolean;
  text: string;
}

export interface MuteMessage {
  id?: number | string | null;
  match: string;
  v?: number | null;
  type: "mute";
  muted: boolean;
}

export interface MutedMessage {
  type: "muted";
  match: string;
  muted: boolean;
}

/**
 * A new game's choices: the wire form of a :class:`~gammon.views.MatchConfig`
 * (:meth:`config`, where its rules are).
 */
export interface NewGame {
  kind?: "single" | "money" | "match";
  length?: number;
  cube?: boolean;
  clock?: "none" | "italian" | "italian_per_point" | "polish";
  private?: boolean;
  bot?: number | null;
  jacoby?: boolean;
  beavers?: boolean;
  winner_rolls_anew?: boolean;
  client_seed?: string;
  opponent?: string | null;
}

export interface NewToken {
  description: string;
  scopes?: "bot:play"[];
}

/**
 * A new tournament's settings (PROTOCOL.md, *Tournaments*): a Swiss has ``rounds``, an
 * arena its ``duration`` in seconds, a knockout neither; ``starts_at`` (server time) null
 * to start it by hand.
 */
export interface NewTournament {
  name: string;
  format: "knockout" | "swiss" | "arena";
  length?: number;
  clock?: "none" | "italian" | "italian_per_point" | "polish";
  rated?: boolean;
  private?: boolean;
  starts_at?: number | null;
  max_players?: number;
  rounds?: number | null;
  duration?: number | null;
}

/** ``GET /api/puzzles/next``: the puzzle and the player's rating. */
export interface NextPuzzleView {
  puzzle: PuzzleView;
  rating: PuzzleRatingView;
}

export interface NoLegalMoveView {
  type: "no_legal_move";
  player: number;
  roll: number[];
  v: number;
}

export interface OkResponse {
  ok: true;
}

/** An open public game in the lobby: its settings, when and by whom it was created. */
export interface OpenGame extends ConfigView {
  id: string;
  created_at: number;
  creator: UserView | null;
}

export interface OpeningRecord {
  t: "opening";
  first: number;
  throws: number[][];
  roll: number[];
}

export interface OpeningRolledView {
  type: "opening_rolled";
  first: number;
  throws: number[][];
  roll: number[];
  v: number;
}

/** A player's options (RULES.md §8), kept for future games. */
export interface Options {
  confirm_turn?: boolean;
  auto_roll?: boolean;
  graphics?: "high" | "low";
  flip?: boolean;
  auto_bearoff?: boolean;
  sound?: boolean;
  language?: string;
  numbering?: boolean;
  tap_longest?: boolean;
}

/** The cube views' cubeless probabilities, with their cubeless equity. */
export interface OutcomesView {
  win: number | null;
  win_gammon: number | null;
  win_backgammon: number | null;
  lose_gammon: number | null;
  lose_backgammon: number | null;
  equity: number | null;
}

/**
 * The socket's player was paired by Play now (or given the bot they chose): the match
 * has started; open it.
 */
export interface PairedMessage {
  type: "paired";
  match: string;
}

export interface PingMessage {
  id?: number | string | null;
  type: "ping";
}

export interface PlayMessage {
  id?: number | string | null;
  match: string;
  v?: number | null;
  type: "play";
  play: string;
}

export interface PongMessage {
  id?: number | string | null;
  type: "pong";
  n: number;
}

/** One Play now pool and how many wait in it. */
export interface PoolView {
  kind: "single" | "money" | "match";
  length: number;
  clock: "none" | "italian" | "italian_per_point" | "polish";
  rated: boolean;
  waiting: number;
}

/**
 * How many wait in each Play now pool (the pools where someone waits), to a socket
 * following the lobby.
 */
export interface PoolsMessage {
  type: "pools";
  pools: PoolView[];
}

/** The five cubeless probabilities of the side to play (gammons include backgammons). */
export interface ProbabilitiesView {
  win: number;
  win_gammon: number;
  win_backgammon: number;
  lose_gammon: number;
  lose_backgammon: number;
}

/**
 * A public tournament the player entered: once finished, their final ``place`` among
 * its ``entrants`` (every entry, the withdrawn too, as its standings count them; both
 * null before the end and for a cancelled one); ``withdrawn`` whether they withdrew.
 */
export interface ProfileTournamentView {
  id: string;
  name: string;
  format: "knockout" | "swiss" | "arena";
  state: "registering" | "running" | "finished" | "cancelled";
  finished_at: number | null;
  place: number | null;
  entrants: number | null;
  withdrawn: boolean;
}

/**
 * ``GET /api/users/{name}/profile``: the player, their rating after each rated match
 * and their error rate in each analysed match (oldest first), their results by kind and
 * length, their most frequent opponents, and the last public tournaments they entered
 * (newest first).
 */
export interface ProfileView {
  user: UserView;
  ratings: RatingPointView[];
  error_rates: ErrorRatePointView[];
  results: ResultsByKindView[];
  opponents: HeadToHeadView[];
  tournaments: ProfileTournamentView[];
}

/**
 * The answer to a puzzle: a checker play in the project's notation, or a cube action
 * (one of them, as the puzzle asks).
 */
export interface PuzzleAnswer {
  play?: string | null;
  cube?: "double" | "no double" | "take" | "drop" | "beaver" | null;
}

/** A graded answer and its equity (EMG at the puzzle's score and cube). */
export interface PuzzleAnswerView {
  answer: string;
  equity: number;
}

/**
 * A puzzle's context as the player to answer sees it: ``length`` 0 for money play,
 * ``score`` [theirs, the opponent's].
 */
export interface PuzzleContextView {
  length: number;
  score: number[];
  cube: number;
  cube_owner: "centred" | "you" | "opponent";
  crawford: boolean;
  jacoby: boolean;
}

/** A player's puzzle rating (Glicko-2). */
export interface PuzzleRatingView {
  rating: number;
  rd: number;
  attempts: number;
  solved: number;
}

/** Where the puzzle was met in a public match, and the answer given there. */
export interface PuzzleSourceView {
  match: string;
  game: number;
  move_number: number;
  played: string;
  error: number;
}

/**
 * A checker puzzle's roll played so far (``POST /api/puzzles/{id}/steps``): the board
 * after the steps, the dice left, what may move next (as :class:`MovesView`) and, once the
 * roll is played whole, the play in the project's notation (else null).
 */
export interface PuzzleStepsView {
  board: number[];
  dice_left: number[];
  legal: { [key: string]: { [key: string]: number } };
  reach: { [key: string]: { [key: string]: number[] } };
  play: string | null;
}

/**
 * The answer to a puzzle, graded; the public match it came from (null if none), and
 * the player's and the puzzle's ratings before and after it.
 */
export interface PuzzleVerdictView extends GradedAnswerView {
  source: PuzzleSourceView | null;
  rating: PuzzleRatingView;
  rating_change: RatingChangeView;
  puzzle_rating: RatingChangeView;
}

/**
 * A puzzle, without its answer: ``position_id`` seen from the side on roll (for a take,
 * the doubler, as GNU Backgammon writes a pending double), ``match_id`` its context with
 * the player to answer as player 0, ``dice`` for a checker play, ``choices`` for a cube
 * question; ``rating`` the puzzle's own.
 */
export interface PuzzleView {
  id: number;
  kind: "checker" | "double" | "take";
  position_id: string;
  match_id: string;
  board: number[];
  dice: number[] | null;
  choices: string[];
  context: PuzzleContextView;
  themes: string[];
  rating: number;
  attempts: number;
  solved: number;
}

/**
 * One legal play, ranked by the engine: ``moves`` its checkers' moves (as a
 * ``turn_ended`` event lists them), ``position_id`` the position after it seen from the
 * opponent, ``ply`` the depth its evaluation comes from.
 */
export interface RankedPlayView {
  play: string;
  moves: MoveView[];
  position_id: string;
  equity: number;
  ply: number;
  probabilities: ProbabilitiesView;
}

export interface RatingChange {
  match: string;
  before: number;
  after: number;
  at: number;
}

export interface RatingChangeView {
  before: number;
  after: number;
}

/** A player's rating after a rated match (seconds since the epoch). */
export interface RatingPointView {
  match: string;
  at: number;
  rating: number;
}

export interface RatingsResponse {
  user: UserView;
  history: RatingChange[];
}

/**
 * ``GET /readyz`` (200 ready, 503 not): what each dependency answered (``ok`` or the
 * error) and whether all did.
 */
export interface ReadyResponse {
  ok: boolean;
  checks: { [key: string]: string };
}

export interface RematchMessage {
  type: "rematch";
  match: string;
  new: string;
  by: string;
}

/** The answer to a resignation: accept or reject. */
export interface ResignDecisionView {
  action: "accept" | "reject";
  player: number;
  level: string;
  equities: ResignEquities;
  probabilities: OutcomesView;
  ply: number | null;
  efficiency: number;
  cube: string;
}

export interface ResignEquities {
  accept: number | null;
  play_on: number | null;
}

export interface ResignEventView {
  type: "resign_offered" | "resign_accepted" | "resign_rejected";
  player: number;
  level: number;
  v: number;
}

export interface ResignMessage {
  id?: number | string | null;
  match: string;
  v?: number | null;
  type: "resign";
  level: number;
}

export interface ResignOfferView {
  player: number;
  level: number;
}

/** How a match ended (stored with the match). */
export interface ResultView {
  winner: number;
  reason: "points" | "abandon" | "timeout";
  score: number[];
}

/** The finished matches of one kind and length, and how many the player won. */
export interface ResultsByKindView {
  kind: string;
  length: number;
  played: number;
  won: number;
}

export interface RollMessage {
  id?: number | string | null;
  match: string;
  v?: number | null;
  type: "roll";
}

export interface RollRecord {
  t: "roll";
  p: number;
  roll: number[];
}

/**
 * One play's rollout so far: the games played, its equity (as ``POST /api/hint``
 * values plays), the standard error of its cubeless equity and the mover's cubeless
 * probabilities (null before the first chunk).
 */
export interface RolloutPlayView {
  play: string;
  games: number;
  equity: number | null;
  standard_error: number | null;
  probabilities: ProbabilitiesView | null;
}

/**
 * An explorer rollout (:mod:`gammon.server.explorer`): its status, the games asked in
 * all and played so far, how it was played, why it failed, and each play.
 */
export interface RolloutView {
  id: string;
  status: "running" | "done" | "cancelled" | "failed";
  games: number;
  games_done: number;
  truncate: number;
  seed: number;
  error: string;
  plays: RolloutPlayView[];
}

export interface SeatView {
  id: number;
  name: string;
  kind: "user" | "guest" | "bot";
  rating: number;
  bot: boolean;
}

/**
 * Play now: wait in the pool of these choices until paired (PROTOCOL.md, *Play now*);
 * with ``bot`` and ``bot_after``, play that bot if nobody is paired within that many
 * seconds.
 */
export interface SeekMessage {
  id?: number | string | null;
  type: "seek";
  kind: "single" | "money" | "match";
  length?: number;
  clock?: "none" | "italian" | "italian_per_point" | "polish";
  rated?: boolean;
  bot?: number | null;
  bot_after?: number | null;
}

/**
 * A player's place in a Play now pool: the pool (``kind``, ``length``, ``clock``,
 * ``rated``), the bot fallback, and since when they wait (server time).
 */
export interface SeekView {
  kind: "single" | "money" | "match";
  length: number;
  clock: "none" | "italian" | "italian_per_point" | "polish";
  rated: boolean;
  bot: number | null;
  bot_after: number | null;
  since: number;
}

/** Where the socket's player stands in Play now: their place, or null (in no pool). */
export interface SeekingMessage {
  type: "seeking";
  seek: SeekView | null;
}

/** An open game its creator reserved for another player (a challenge, a rematch). */
export interface SentChallenge extends OpenGame {
  opponent: UserView | null;
}

export interface ServerPing {
  type: "ping";
  n: number;
  server_time: number;
}

export interface ServerPong {
  type: "pong";
  server_time: number;
  id: number | string | null;
}

export interface SimpleActionMessage {
  id?: number | string | null;
  match: string;
  v?: number | null;
  type: "undo" | "confirm" | "double" | "take" | "drop" | "beaver" | "accept_resign" | "reject_resign" | "abandon";
}

/** The whole match: ``you`` is the viewer's seat (None for a spectator). */
export interface StateMessage {
  type: "state";
  match: string;
  v: number;
  you: number | null;
  info: InfoView;
  game: GameView | null;
  clock: ClockView | null;
  chat: ChatLine[];
}

export interface StepMessage {
  id?: number | string | null;
  match: string;
  v?: number | null;
  type: "step";
  from: number;
  die: number;
}

export interface StepUndoneView {
  type: "step_undone";
  player: number;
  move: MoveView;
  die: number;
  v: number;
}

export interface SubscribeMessage {
  id?: number | string | null;
  match: string;
  v?: number | null;
  type: "subscribe";
  since?: number | null;
  key?: string | null;
}

/** The answer to a double: take, pass or beaver. */
export interface TakeDecisionView {
  action: "take" | "pass" | "beaver";
  player: number;
  equities: TakeEquities;
  mwc?: TakeMwc;
  probabilities: OutcomesView;
  take_point: number | null;
  ply: number | null;
  efficiency: number;
  cube: string;
}

export interface TakeEquities {
  take: number | null;
  pass: number | null;
  beaver?: number | null;
}

export interface TakeMwc {
  take: number | null;
  pass: number | null;
}

/**
 * An API token as its owner sees it: never its secret, which only the answer that
 * created it holds.
 */
export interface TokenView {
  id: number;
  description: string;
  scopes: "bot:play"[];
  created_at: number;
  last_used_at: number | null;
}

export interface TournamentChatLineView {
  from: string;
  text: string;
  at: number;
}

/**
 * ``GET /api/tournaments/{id}``: the tournament, its entries, its rounds with their
 * pairings, the standings, its invite link (to its organiser, when private) and the last
 * lines of its chat (oldest first).
 */
export interface TournamentDetailView {
  tournament: TournamentView;
  entries: TournamentEntryView[];
  rounds: TournamentRoundView[];
  standings: TournamentStandingView[];
  invite: string | null;
  chat: TournamentChatLineView[];
}

/**
 * Who enters: the caller, or (``bot``, by the organiser) the server's bot of that
 * level.
 */
export interface TournamentEntry {
  bot?: number | null;
}

/**
 * A player entered: their rating (at the start, once started) and whether they
 * withdrew (or were withdrawn after a no-show).
 */
export interface TournamentEntryView {
  id: number;
  name: string;
  rating: number;
  withdrawn: boolean;
}

/**
 * ``GET /api/tournaments``: the public tournaments not started (soonest first), those
 * running, and the last 50 finished (latest first).
 */
export interface TournamentListView {
  upcoming: TournamentView[];
  running: TournamentView[];
  finished: TournamentView[];
}

/**
 * A pair of a round: the players' ids (``second`` null: a bye), the real match it made
 * (null for a bye or a walkover), the winner once known and why it ended without being
 * played out (null when played).
 */
export interface TournamentPairingView {
  board: number;
  first: number;
  second: number | null;
  match: string | null;
  winner: number | null;
  reason: "bye" | "walkover" | "no_show" | null;
  made_at: number;
  finished_at: number | null;
}

export interface TournamentRoundView {
  round: number;
  pairings: TournamentPairingView[];
}

/**
 * A player's place: ``points`` by the format's rule, the matches ``played`` and
 * ``won`` (byes not counted), Buchholz and Sonneborn-Berger in a Swiss (null
 * otherwise).
 */
export interface TournamentStandingView {
  place: number;
  id: number;
  name: string;
  points: number;
  played: number;
  won: number;
  buchholz: number | null;
  sonneborn_berger: number | null;
  rating: number;
  withdrawn: boolean;
}

/**
 * A tournament's settings and where it stands (PROTOCOL.md, *Tournaments*): ``round``
 * is the current round (0 before the first), ``players`` the entries not withdrawn,
 * ``ends_at`` an arena's end (null otherwise, and before the start), ``no_show`` the
 * seconds a match waits for a player's first move, ``stall`` for a player who has moved
 * and stopped.
 */
export interface TournamentView {
  id: string;
  name: string;
  format: "knockout" | "swiss" | "arena";
  length: number;
  clock: "none" | "italian" | "italian_per_point" | "polish";
  rated: boolean;
  private: boolean;
  starts_at: number | null;
  max_players: number;
  rounds: number | null;
  duration: number | null;
  state: "registering" | "running" | "finished" | "cancelled";
  round: number;
  organiser: string;
  players: number;
  no_show: number;
  stall: number;
  created_at: number;
  started_at: number | null;
  ends_at: number | null;
  finished_at: number | null;
}

/**
 * ``play``: the moves in notation (:func:`gammon.core.notation.format_play`, '' for a
 * pass), as the move list writes them; the view's own field, not the core event's.
 */
export interface TurnEndedView {
  type: "turn_ended";
  player: number;
  moves: MoveView[];
  play: string;
  v: number;
}

/** Leave the Play now pool. */
export interface UnseekMessage {
  id?: number | string | null;
  type: "unseek";
}

export interface UnsubscribeMessage {
  id?: number | string | null;
  match: string;
  v?: number | null;
  type: "unsubscribe";
}

/** The events since the client's version, and the game and clock after them. */
export interface UpdateMessage {
  type: "update";
  match: string;
  v: number;
  events: (GameStartedView | OpeningRolledView | DiceRolledView | CheckerMovedView | StepUndoneView | NoLegalMoveView | TurnEndedView | CubeEventView | ResignEventView | GameEndedView | MatchEndedView | ClockPausedView)[];
  game: GameView | null;
  clock: ClockView | null;
  info?: InfoView;
}

export interface UserResponse {
  user: UserView;
}

/**
 * A player as anyone may see them; ``bot``: a program plays it (the server's own bot,
 * ``kind`` 'bot', or a bot account of the Bot API, ``kind`` 'user').
 */
export interface UserView {
  id: number;
  name: string;
  kind: "user" | "guest" | "bot";
  rating: number;
  experience: number;
  bot: boolean;
}

export interface WelcomeMessage {
  type: "welcome";
  user: UserView;
  server_time: number;
}
