"""The wire: the one parser of client messages, and the JSON form of actions and events.

Every message a client sends goes through :func:`parse_client_message` — the only place
that reads client input — and comes out as one of the typed :data:`ClientMessage` values,
or raises :class:`ProtocolError` with a code the server sends back (PROTOCOL.md lists them).
Nothing else in the server looks at raw client text.

>>> parse_client_message('{"type": "step", "match": "abc", "from": 24, "die": 6}')
StepMessage(id=None, match='abc', v=None, type='step', from_=24, die=6)
>>> try:
...     parse_client_message('{"type": "fly"}')
... except ProtocolError as error:
...     print(error.code)
unknown_type

Actions are stored in the match log as small JSON objects (:func:`action_json`,
:func:`action_from_json`).

Every message the server sends is typed here too (:data:`ServerMessage`: ``welcome``,
``state``, ``update``, ``chat``, …, built by the functions below and by the views of
:mod:`gammon.views`), and so is every HTTP body in both directions (the request models, and
the response types the OpenAPI document shows). They are ``TypedDict`` s — plain dicts when
the server builds them, checked by mypy where they are built — and pydantic validates them
strictly (:func:`server_message_errors`, :func:`response_adapter`): the tests run every
message of their matches through that, and PROTOCOL.md's tables are checked against these
types (``tests/server/test_wire.py``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import (
    Annotated,
    Any,
    Literal,
    NotRequired,
    TypeAlias,
    cast,
    get_args,
    get_type_hints,
)

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    model_validator,
)
from typing_extensions import TypedDict, is_typeddict

from gammon import views
from gammon.core import actions as A
from gammon.core import errors as E
from gammon.core.cube import Level
from gammon.core.dice import OpeningRoll, Roll
from gammon.core.moves import Play
from gammon.server.records import Seek
from gammon.views import (
    ClockView,
    ConfigView,
    EvalView,
    EventView,
    GameView,
    HintView,
    InfoView,
    UserView,
)


class ProtocolError(ValueError):
    """A client message the server refuses; ``code`` is sent back in the error message, with
    the message's ``id`` when it had a valid one."""

    def __init__(self, code: str, message: str, id: int | str | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.id = id


def _unicode(text: str) -> str:
    """JSON may escape a lone UTF-16 surrogate (``"\\ud800"``) or a NUL (``"\\u0000"``):
    neither is text (and PostgreSQL cannot store a NUL), refused."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("not valid Unicode text (a lone surrogate)") from None
    if "\x00" in text:
        raise ValueError("not valid text (a NUL character)")
    return text


Text = Annotated[str, AfterValidator(_unicode)]
"""A string that is Unicode text: every string a client sends (messages and HTTP bodies)."""
MATCH_ID = r"^[A-Za-z0-9_-]{1,24}$"
"""What a match id may be (the server makes 16 of these characters)."""
MatchRef = Annotated[str, Field(pattern=MATCH_ID)]
Version = Annotated[int, Field(ge=0, le=10**9)]
MessageId = Annotated[int, Field(ge=0, le=2**53)] | Annotated[Text, Field(max_length=40)]
PointFrom = Annotated[int, Field(alias="from", ge=1, le=25)]
"""Where a step's checker starts (25 the bar)."""
Die = Annotated[int, Field(ge=1, le=6)]


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, populate_by_name=True)

    id: MessageId | None = None
    """An optional id of the client's choosing, echoed in an error about this message."""


class _MatchMessage(_Message):
    match: MatchRef
    v: Version | None = None
    """For actions: the version the client has seen; a different one is refused as stale."""


class SubscribeMessage(_MatchMessage):
    type: Literal["subscribe"]
    since: Version | None = None
    key: Annotated[Text, Field(max_length=64)] | None = None
    """The invite key of a private match (for a spectator holding the invite link)."""


class UnsubscribeMessage(_MatchMessage):
    type: Literal["unsubscribe"]


class RollMessage(_MatchMessage):
    type: Literal["roll"]


class PlayMessage(_MatchMessage):
    type: Literal["play"]
    play: Annotated[Text, Field(max_length=80)]


class StepMessage(_MatchMessage):
    type: Literal["step"]
    from_: PointFrom
    die: Die


class SimpleActionMessage(_MatchMessage):
    type: Literal["undo", "confirm", "double", "take", "drop", "beaver", "accept_resign",
                  "reject_resign", "abandon"]


class ResignMessage(_MatchMessage):
    type: Literal["resign"]
    level: Annotated[int, Field(ge=1, le=3)]
    """An int: ``true`` and ``1.0`` are refused (``Literal[1]`` would take them)."""


class ChatMessage(_MatchMessage):
    type: Literal["chat"]
    text: Annotated[Text, Field(min_length=1, max_length=300)]


class MuteMessage(_MatchMessage):
    type: Literal["mute"]
    muted: bool


class LobbyFeedMessage(_Message):
    type: Literal["subscribe_lobby", "unsubscribe_lobby"]
    """Follow the lobby's open games (a ``lobby`` message now and at every change), or
    stop."""


class SeekMessage(_Message):
    """Play now: wait in the pool of these choices until paired (PROTOCOL.md, *Play now*);
    with ``bot`` and ``bot_after``, play that bot if nobody is paired within that many
    seconds."""

    type: Literal["seek"]
    kind: views.MatchKind
    length: Annotated[int, Field(ge=1, le=views.MAX_LENGTH)] = 1
    clock: views.ClockKind = "none"
    rated: bool = False
    bot: Annotated[int, Field(ge=views.BOT_LEVELS[0], le=views.BOT_LEVELS[-1])] | None = None
    bot_after: Annotated[int, Field(ge=1, le=600)] | None = None

    @model_validator(mode="after")
    def _bot_both_or_neither(self) -> SeekMessage:
        if (self.bot is None) != (self.bot_after is None):
            raise ValueError("bot and bot_after: both or neither")
        return self


class UnseekMessage(_Message):
    """Leave the Play now pool."""

    type: Literal["unseek"]


class PingMessage(_Message):
    type: Literal["ping"]


class PongMessage(_Message):
    type: Literal["pong"]
    n: Annotated[int, Field(ge=0, le=2**53)]


ClientMessage: TypeAlias = Annotated[
    SubscribeMessage | UnsubscribeMessage | RollMessage | PlayMessage | StepMessage
    | SimpleActionMessage | ResignMessage | ChatMessage | MuteMessage | LobbyFeedMessage
    | SeekMessage | UnseekMessage | PingMessage | PongMessage,
    Field(discriminator="type"),
]
"""Every message a client may send."""

ActionMessage: TypeAlias = (
    RollMessage | PlayMessage | StepMessage | SimpleActionMessage | ResignMessage
)

_ADAPTER: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
_ID_ADAPTER: TypeAdapter[Any] = TypeAdapter(MessageId, config=ConfigDict(strict=True))
TYPES = frozenset({
    "subscribe", "unsubscribe", "roll", "play", "step", "undo", "confirm", "double", "take",
    "drop", "beaver", "accept_resign", "reject_resign", "abandon", "resign", "chat", "mute",
    "subscribe_lobby", "unsubscribe_lobby", "seek", "unseek", "ping", "pong",
})
MAX_MESSAGE_BYTES = 4096


def parse_client_message(raw: str | bytes, *, max_bytes: int = MAX_MESSAGE_BYTES
                         ) -> ClientMessage:
    """The one parser: raw WebSocket text into a :data:`ClientMessage`, or
    :class:`ProtocolError` (``too_large``, ``malformed`` or ``unknown_type``)."""
    size = len(raw)  # characters: at most a quarter of the UTF-8 bytes
    if isinstance(raw, str) and max_bytes // 4 < size <= max_bytes:
        size = len(raw.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise ProtocolError("too_large", f"messages are at most {max_bytes} bytes (UTF-8)")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise ProtocolError("malformed", "not JSON text") from None
    if not isinstance(data, dict):
        raise ProtocolError("malformed", "a message is a JSON object")
    message_id = _valid_id(data.get("id"))
    kind = data.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("malformed", "a message has a string 'type'", message_id)
    if kind not in TYPES:
        raise ProtocolError("unknown_type", f"unknown message type {printable(kind[:40])!r}",
                            message_id)
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as error:
        raise ProtocolError("malformed", first_error(error.errors(include_input=False), skip=1),
                            message_id) from None


def _valid_id(value: Any) -> int | str | None:
    """The message's ``id`` if it is a valid one (else None: nothing to echo)."""
    try:
        return _ID_ADAPTER.validate_python(value)  # type: ignore[no-any-return]
    except ValidationError:
        return None


def printable(text: str) -> str:
    """``text`` with what cannot be encoded (lone surrogates) written as escapes."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def first_error(errors: Sequence[Any], *, skip: int = 0) -> str:
    """The first of a validation's errors as ``field: what is wrong``, made printable; the
    input is not repeated. ``skip`` drops the first parts of the field's path."""
    if not errors:
        return "bad input"
    first = errors[0]
    where = ".".join(str(part) for part in first["loc"][skip:]) or "message"
    return printable(f"{where}: {first['msg']}")


# -- actions in the match log ----------------------------------------------------------------

_SIMPLE: dict[str, type[Any]] = {
    "undo": A.UndoStep, "confirm": A.ConfirmPlay, "double": A.OfferDouble, "take": A.Take,
    "drop": A.Drop, "beaver": A.Beaver, "accept_resign": A.AcceptResign,
    "reject_resign": A.RejectResign, "abandon": A.Abandon, "timeout": A.Timeout,
}
_SIMPLE_NAMES = {cls: name for name, cls in _SIMPLE.items()}


def action_json(action: A.Action) -> dict[str, Any]:
    """The stored form of a core action (dice included, so a replay needs no dice)."""
    match action:
        case A.RollOpening(opening=o):
            return {"t": "opening", "first": o.first, "throws": [list(t) for t in o.throws],
                    "roll": [o.roll.die1, o.roll.die2]}
        case A.RollDice(player=p, roll=r):
            return {"t": "roll", "p": p, "roll": [r.die1, r.die2]}
        case A.PlayMove(player=p, play=play):
            text = play.notation() if isinstance(play, Play) else play
            return {"t": "play", "p": p, "play": text}
        case A.MoveChecker(player=p, source=s, die=d):
            return {"t": "step", "p": p, "from": s, "die": d}
        case A.OfferResign(player=p, level=level):
            return {"t": "resign", "p": p, "level": int(level)}
        case _:
            return {"t": _SIMPLE_NAMES[type(action)], "p": action.player}


def action_from_json(data: dict[str, Any], *, winner_rolls_anew: bool = False) -> A.Action:
    """The core action of a stored action (inverse of :func:`action_json`)."""
    kind = data["t"]
    if kind == "opening":
        throws = tuple((int(a), int(b)) for a, b in data["throws"])
        opening = OpeningRoll(int(data["first"]), Roll(*data["roll"]), throws)
        return A.RollOpening(opening)
    if kind == "roll":
        return A.RollDice(data["p"], Roll(*data["roll"]))
    if kind == "play":
        return A.PlayMove(data["p"], data["play"])
    if kind == "step":
        return A.MoveChecker(data["p"], data["from"], data["die"])
    if kind == "resign":
        return A.OfferResign(data["p"], Level(data["level"]))
    return _SIMPLE[kind](data["p"])  # type: ignore[no-any-return]


def message_action(message: ActionMessage, player: int) -> A.Action:
    """The core action a client message proposes for ``player`` (not the dice actions)."""
    match message:
        case PlayMessage():
            return A.PlayMove(player, message.play)
        case StepMessage():
            return A.MoveChecker(player, message.from_, message.die)
        case ResignMessage():
            return A.OfferResign(player, Level(message.level))
        case SimpleActionMessage():
            return _SIMPLE[message.type](player)  # type: ignore[no-any-return]
    raise TypeError(f"not an action message: {message!r}")


# -- HTTP request bodies ---------------------------------------------------------------------

# Strict: every field takes its own JSON type only (``true`` is not 1, ``1.0`` is not 1);
# every string must be Unicode text (:data:`Text`).
_BODY = ConfigDict(extra="forbid", strict=True)


class Credentials(BaseModel):
    model_config = _BODY
    name: Annotated[Text, Field(max_length=40)]
    password: Annotated[Text, Field(min_length=1, max_length=200)]


class Options(BaseModel):
    """A player's options (RULES.md §8), kept for future games."""

    model_config = _BODY
    confirm_turn: bool = False
    auto_roll: bool = False
    graphics: Literal["high", "low"] = "high"
    flip: bool = False
    auto_bearoff: bool = False
    sound: bool = True
    language: Annotated[str, Field(pattern=r"^[a-z]{2}(-[A-Z]{2})?$")] = "en"
    numbering: bool = True
    tap_longest: bool = False
    """On a touch screen a tap on a checker plays its longest move (the first way the client
    had); off, a tap picks the checker and a tap on a lit point moves it there."""


class NewGame(BaseModel):
    """A new game's choices: the wire form of a :class:`~gammon.views.MatchConfig`
    (:meth:`config`, where its rules are)."""

    model_config = _BODY
    kind: views.MatchKind = "match"
    length: Annotated[int, Field(ge=1, le=views.MAX_LENGTH)] = 5
    cube: bool = True
    clock: views.ClockKind = "none"
    private: bool = False
    bot: Annotated[int, Field(ge=views.BOT_LEVELS[0], le=views.BOT_LEVELS[-1])] | None = None
    """The bot's strength: 1 beginner, 2 casual, 3 intermediate, 4 expert, 5 world-class."""
    jacoby: bool = False
    beavers: bool = False
    winner_rolls_anew: bool = False
    client_seed: Annotated[Text, Field(max_length=64)] = ""
    opponent: Annotated[Text, Field(max_length=40)] | None = None
    """A challenge: the name of the one registered player (a bot account, say) who may take
    the seat; the game is then reserved for them, as a rematch is (not in the lobby)."""

    def config(self, clock_scale: float) -> views.MatchConfig:
        """The match configuration chosen (:meth:`MatchConfig.chosen
        <gammon.views.MatchConfig.chosen>`); ConfigError when refused."""
        return views.MatchConfig.chosen(
            kind=self.kind, length=self.length, cube=self.cube, clock=self.clock,
            bot=self.bot, jacoby=self.jacoby, beavers=self.beavers,
            winner_rolls_anew=self.winner_rolls_anew, private=self.private,
            clock_scale=clock_scale)


class Join(BaseModel):
    model_config = _BODY
    client_seed: Annotated[Text, Field(max_length=64)] = ""


class NewTournament(BaseModel):
    """A new tournament's settings (PROTOCOL.md, *Tournaments*): a Swiss has ``rounds``, an
    arena its ``duration`` in seconds, a knockout neither; ``starts_at`` (server time) null
    to start it by hand."""

    model_config = _BODY
    name: Annotated[Text, Field(min_length=3, max_length=60)]
    format: views.TournamentFormat
    length: Annotated[int, Field(ge=1, le=views.MAX_LENGTH)] = 3
    clock: views.ClockKind = "none"
    rated: bool = False
    private: bool = False
    starts_at: Annotated[float, Field(gt=0, lt=2**34, allow_inf_nan=False)] | None = None
    max_players: Annotated[int, Field(ge=2, le=256)] = 64
    rounds: Annotated[int, Field(ge=1, le=20)] | None = None
    duration: Annotated[int, Field(ge=10, le=7 * 86400)] | None = None

    @model_validator(mode="after")
    def _format_fields(self) -> NewTournament:
        if (self.rounds is not None) != (self.format == "swiss"):
            raise ValueError("rounds: a Swiss tournament has them, no other")
        if (self.duration is not None) != (self.format == "arena"):
            raise ValueError("duration: an arena has one, no other format")
        return self


class TournamentEntry(BaseModel):
    """Who enters: the caller, or (``bot``, by the organiser) the server's bot of that
    level."""

    model_config = _BODY
    bot: Annotated[int, Field(ge=views.BOT_LEVELS[0], le=views.BOT_LEVELS[-1])] | None = None


class TournamentChat(BaseModel):
    """A line for the tournament's chat (its players only), 1 to 300 characters as a match's
    chat line."""

    model_config = _BODY
    text: Annotated[Text, Field(min_length=1, max_length=300)]


Scope: TypeAlias = Literal["bot:play"]
"""What an API token allows: ``bot:play``, everything a player does (the lobby, matches,
chat) as the bot account that owns it."""


class NewToken(BaseModel):
    model_config = _BODY
    description: Annotated[Text, Field(min_length=1, max_length=100)]
    scopes: Annotated[list[Scope], Field(min_length=1, max_length=4)] = ["bot:play"]


class HintRequest(BaseModel):
    model_config = _BODY
    position_id: Annotated[Text, Field(max_length=20)]
    dice: Annotated[Text, Field(max_length=5)]
    plies: Annotated[int, Field(ge=0, le=2)] = 2
    match_id: Annotated[Text, Field(max_length=20)] | None = None
    """Where the decision is (score, cube): the plays are then valued there."""


class EvalRequest(BaseModel):
    model_config = _BODY
    position_id: Annotated[Text, Field(max_length=20)]
    match_id: Annotated[Text, Field(max_length=20)] | None = None
    plies: Annotated[int, Field(ge=0, le=2)] = 2
    beavers: bool = False


CubeAnswer: TypeAlias = Literal["double", "no double", "take", "drop", "beaver"]


class ExplorerText(BaseModel):
    """A position to explore: a Position ID (``POSITION:MATCH`` with a Match ID), an XGID,
    or empty for the start."""

    model_config = _BODY
    text: Annotated[Text, Field(max_length=80)] = ""


class RolloutRequest(BaseModel):
    """Roll out the best plays of a roll (the explorer)."""

    model_config = _BODY
    position_id: Annotated[Text, Field(max_length=20)]
    dice: Annotated[Text, Field(max_length=5)]
    match_id: Annotated[Text, Field(max_length=20)] | None = None
    plays: Annotated[list[Annotated[Text, Field(max_length=60)]],
                     Field(min_length=1, max_length=4)]
    games: Annotated[int, Field(ge=36, le=1296)] = 324
    truncate: Annotated[int, Field(ge=0, le=30)] = 7
    seed: Annotated[int, Field(ge=1, le=2**31 - 1)] = 1


class PuzzleStep(BaseModel):
    """One step of a checker puzzle's roll, as the match's ``step``: the checker on
    ``from`` moves by ``die``."""

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)
    from_: PointFrom
    die: Die


class PuzzleSteps(BaseModel):
    """A checker puzzle's roll played so far on its board, its steps in order."""

    model_config = _BODY
    steps: Annotated[list[PuzzleStep], Field(max_length=4)]


class PuzzleAnswer(BaseModel):
    """The answer to a puzzle: a checker play in the project's notation, or a cube action
    (one of them, as the puzzle asks)."""

    model_config = _BODY
    play: Annotated[Text, Field(max_length=60)] | None = None
    cube: CubeAnswer | None = None

    @model_validator(mode="after")
    def _one(self) -> PuzzleAnswer:
        if (self.play is None) == (self.cube is None):
            raise ValueError("give one of play and cube")
        return self


# -- server -> client: the WebSocket -----------------------------------------------------------

ChatLine = TypedDict("ChatLine", {
    "type": Literal["chat"], "match": str, "seat": int, "from": str, "text": str,
    "at": float})
"""A player's chat line (sent as is, and kept in the ``chat`` of ``state``)."""


class WelcomeMessage(TypedDict):
    type: Literal["welcome"]
    user: UserView
    server_time: float


class StateMessage(TypedDict):
    """The whole match: ``you`` is the viewer's seat (None for a spectator)."""

    type: Literal["state"]
    match: str
    v: int
    you: int | None
    info: InfoView
    game: GameView | None
    clock: ClockView | None
    chat: list[ChatLine]


class UpdateMessage(TypedDict):
    """The events since the client's version, and the game and clock after them."""

    type: Literal["update"]
    match: str
    v: int
    events: list[EventView]
    game: GameView | None
    clock: ClockView | None
    info: NotRequired[InfoView]
    """Only in the update that holds ``match_ended``: the result, the seed and the ratings
    after the match."""


class MutedMessage(TypedDict):
    type: Literal["muted"]
    match: str
    muted: bool


class RematchMessage(TypedDict):
    type: Literal["rematch"]
    match: str
    new: str
    by: str


class CancelledMessage(TypedDict):
    type: Literal["cancelled"]
    match: str


class LobbyMessage(TypedDict):
    """The open public games (as ``GET /api/games``), to a socket following the lobby."""

    type: Literal["lobby"]
    games: list[OpenGame]


class ChallengesMessage(TypedDict):
    """The open games reserved for the socket's player (``received``, as ``GET
    /api/challenges``) and those they made for another (``sent``, as ``GET
    /api/challenges/sent``), to a socket following the lobby."""

    type: Literal["challenges"]
    received: list[OpenGame]
    sent: list[SentChallenge]


class SeekView(TypedDict):
    """A player's place in a Play now pool: the pool (``kind``, ``length``, ``clock``,
    ``rated``), the bot fallback, and since when they wait (server time)."""

    kind: views.MatchKind
    length: int
    clock: views.ClockKind
    rated: bool
    bot: int | None
    bot_after: int | None
    since: float


class SeekingMessage(TypedDict):
    """Where the socket's player stands in Play now: their place, or null (in no pool)."""

    type: Literal["seeking"]
    seek: SeekView | None


class PairedMessage(TypedDict):
    """The socket's player was paired by Play now (or given the bot they chose): the match
    has started; open it."""

    type: Literal["paired"]
    match: str


class PoolView(TypedDict):
    """One Play now pool and how many wait in it."""

    kind: views.MatchKind
    length: int
    clock: views.ClockKind
    rated: bool
    waiting: int


class PoolsMessage(TypedDict):
    """How many wait in each Play now pool (the pools where someone waits), to a socket
    following the lobby."""

    type: Literal["pools"]
    pools: list[PoolView]


AnalysisStatus: TypeAlias = Literal["queued", "running", "done", "failed"]


class AnalysisMessage(TypedDict):
    """Where the post-match analysis of a watched match stands
    (:mod:`gammon.server.analysis_worker`): ``done`` of ``total`` games analysed."""

    type: Literal["analysis"]
    match: str
    plies: int
    status: AnalysisStatus
    done: int
    total: int


class ServerPing(TypedDict):
    type: Literal["ping"]
    n: int
    server_time: float


class ServerPong(TypedDict):
    type: Literal["pong"]
    server_time: float
    id: int | str | None


ErrorCode: TypeAlias = Literal[
    "malformed", "too_large", "unknown_type", "not_found", "not_a_player", "not_your_turn",
    "illegal", "not_started", "stale", "time_out", "rate_limited", "busy", "internal",
    "unauthenticated", "bad_token", "bad_pool", "not_eligible", "already_seeking",
    "not_seeking", "too_many_subscriptions"]
"""Every ``code`` of an ``error`` message (PROTOCOL.md, *Error codes*)."""

HTTPErrorCode: TypeAlias = Literal[
    "bad_input", "bad_name", "weak_password", "bad_credentials", "unauthenticated",
    "not_a_player", "reserved", "rated_match_live", "not_found", "not_open", "own_game",
    "name_taken", "not_started", "not_finished", "not_exportable", "analysis_failed",
    "too_many_games", "rate_limited", "internal", "busy", "analysis_busy", "method_not_allowed",
    "bad_token", "not_a_bot", "session_required", "already_bot", "not_eligible",
    "too_many_tokens", "no_puzzle", "already_answered", "illegal_answer", "nothing_due",
    "rollout_running", "not_organiser", "already_registered", "not_registered",
    "registration_closed", "tournament_full", "not_enough_players", "already_started"]
"""Every ``detail.code`` of an HTTP refusal (PROTOCOL.md, *HTTP error codes*, with each
one's status)."""

RefusalCode: TypeAlias = ErrorCode | HTTPErrorCode
"""Every reason code of a refusal, on the socket or over HTTP."""

IllegalReason: TypeAlias = Literal[
    "wrong_phase", "game_over", "cube_unavailable", "resign_not_allowed", "illegal_move",
    "not_allowed"]
"""Why the rules refused an action (the ``reason`` of an ``illegal`` error, PROTOCOL.md)."""


def illegal_reason(error: Exception) -> IllegalReason:
    """The ``reason`` of the core's refusal ``error`` (its class says which rule refused)."""
    for kind, reason in ((E.GameOverError, "game_over"), (E.MatchOverError, "game_over"),
                         (E.WrongPhaseError, "wrong_phase"),
                         (E.CubeNotAvailableError, "cube_unavailable"),
                         (E.ResignationError, "resign_not_allowed"),
                         (E.IllegalMoveError, "illegal_move")):
        if isinstance(error, kind):
            return reason  # type: ignore[return-value]
    return "not_allowed"


class ErrorMessage(TypedDict):
    """A refused message (nothing changed): ``id`` is the message's (null when it had none;
    absent when the parser could not read a valid one), ``match`` and ``v`` the match it
    names and the version the match is at."""

    type: Literal["error"]
    code: ErrorCode
    message: str
    reason: NotRequired[IllegalReason]
    """Only with ``illegal``: which rule refused (a client says it in its language)."""
    id: NotRequired[int | str | None]
    match: NotRequired[str]
    v: NotRequired[int]


ServerMessage: TypeAlias = Annotated[
    WelcomeMessage | StateMessage | UpdateMessage | ChatLine | MutedMessage | RematchMessage
    | CancelledMessage | LobbyMessage | ChallengesMessage | SeekingMessage | PairedMessage
    | PoolsMessage | AnalysisMessage | ServerPing | ServerPong | ErrorMessage,
    Field(discriminator="type"),
]
"""Every message the server sends on the socket."""


def welcome_message(user: UserView, now: float) -> WelcomeMessage:
    return {"type": "welcome", "user": user, "server_time": now}


def ping_message(n: int, now: float) -> ServerPing:
    return {"type": "ping", "n": n, "server_time": now}


def pong_message(message_id: int | str | None, now: float) -> ServerPong:
    return {"type": "pong", "server_time": now, "id": message_id}


def muted_message(match: str, muted: bool) -> MutedMessage:
    return {"type": "muted", "match": match, "muted": muted}


def chat_line(match: str, seat: int, name: str, text: str, at: float) -> ChatLine:
    return {"type": "chat", "match": match, "seat": seat, "from": name, "text": text,
            "at": at}


def rematch_message(match: str, new: str, by: str) -> RematchMessage:
    return {"type": "rematch", "match": match, "new": new, "by": by}


def cancelled_message(match: str) -> CancelledMessage:
    return {"type": "cancelled", "match": match}


def lobby_message(games: list[OpenGame]) -> LobbyMessage:
    return {"type": "lobby", "games": games}


def challenges_message(received: list[OpenGame], sent: list[SentChallenge]
                       ) -> ChallengesMessage:
    return {"type": "challenges", "received": received, "sent": sent}


def seek_view(seek: Seek) -> SeekView:
    return {"kind": seek.kind, "length": seek.length, "clock": seek.clock,
            "rated": seek.rated, "bot": seek.bot, "bot_after": seek.bot_after,
            "since": seek.since}


def seeking_message(seek: Seek | None) -> SeekingMessage:
    return {"type": "seeking", "seek": None if seek is None else seek_view(seek)}


def paired_message(match: str) -> PairedMessage:
    return {"type": "paired", "match": match}


def pools_message(counts: Sequence[tuple[str, int, str, bool, int]]) -> PoolsMessage:
    return {"type": "pools", "pools": [
        {"kind": cast(views.MatchKind, kind), "length": length,
         "clock": cast(views.ClockKind, clock), "rated": rated, "waiting": waiting}
        for kind, length, clock, rated, waiting in counts]}


def error_message(code: ErrorCode, message: str) -> ErrorMessage:
    """An ``error`` without ``id``, ``match`` or ``v`` (the caller adds those it knows)."""
    return {"type": "error", "code": code, "message": message}


# -- server -> client: HTTP responses ----------------------------------------------------------


class ErrorDetail(TypedDict):
    code: HTTPErrorCode
    message: str


class HTTPError(TypedDict):
    """Every HTTP error: ``{"detail": {"code", "message"}}``."""

    detail: ErrorDetail


class MeResponse(TypedDict):
    user: UserView
    options: Options


class UserResponse(TypedDict):
    user: UserView


class OkResponse(TypedDict):
    ok: Literal[True]


class LogoutAllResponse(TypedDict):
    ok: Literal[True]
    revoked: int


class TokenView(TypedDict):
    """An API token as its owner sees it: never its secret, which only the answer that
    created it holds."""

    id: int
    description: str
    scopes: list[Scope]
    created_at: float
    last_used_at: float | None


class CreatedToken(TokenView):
    token: str
    """The secret, shown this once: the server keeps only its SHA-256."""


class OpenGame(ConfigView):
    """An open public game in the lobby: its settings, when and by whom it was created."""

    id: str
    created_at: float
    creator: UserView | None


class SentChallenge(OpenGame):
    """An open game its creator reserved for another player (a challenge, a rematch)."""

    opponent: UserView | None
    """The player it is reserved for."""


class CreatedGame(InfoView):
    invite: str
    """The link that shows the match to whoever holds it."""


class GameState(StateMessage):
    """``GET /api/games/{id}``: a ``state``; the match's players also get the ``invite``."""

    invite: NotRequired[str]


class OpeningRecord(TypedDict):
    t: Literal["opening"]
    first: int
    throws: list[list[int]]
    roll: list[int]
class RollRecord(TypedDict):
    t: Literal["roll"]
    p: int
    roll: list[int]


class FairnessRecord(TypedDict):
    """The dice commitment, the dice actions and, once the match is over, the seed and what
    checking every die found (``problems``: empty when every die is what the seeds give)."""

    match: str
    seed_hash: str
    client_seeds: list[str]
    winner_rolls_anew: bool
    server_seed: str | None
    actions: list[OpeningRecord | RollRecord]
    problems: NotRequired[list[str]]


class HistoryEntry(TypedDict):
    id: str
    status: views.MatchStatus
    config: ConfigView
    players: list[str | None]
    winner: int | None
    result: views.ResultView | None
    rated: bool
    created_at: float
    finished_at: float | None


class RatingChange(TypedDict):
    match: str
    before: float
    after: float
    at: float


class RatingsResponse(TypedDict):
    user: UserView
    history: list[RatingChange]


class LeaderboardEntry(UserView):
    rank: int


class DiceStats(TypedDict):
    """Each face's count, the dice in all, and each roll's count (``"31"``: higher first)."""

    faces: list[int]
    dice: int
    rolls: dict[str, int]


class ReadyResponse(TypedDict):
    """``GET /readyz`` (200 ready, 503 not): what each dependency answered (``ok`` or the
    error) and whether all did."""

    ok: bool
    checks: dict[str, str]


RESPONSES: dict[str, Any] = {
    "me": MeResponse, "user": UserResponse, "ok": OkResponse, "logout_all": LogoutAllResponse,
    "open_games": list[OpenGame], "sent_challenges": list[SentChallenge],
    "created": CreatedGame, "state": GameState, "info": InfoView, "fairness": FairnessRecord,
    "history": list[HistoryEntry],
    "ratings": RatingsResponse, "leaderboard": list[LeaderboardEntry], "dice_stats": DiceStats,
    "hint": HintView, "eval": EvalView, "ready": ReadyResponse,
    "token": CreatedToken, "tokens": list[TokenView],
    "puzzle": views.PuzzleView, "next_puzzle": views.NextPuzzleView,
    "daily_puzzle": views.DailyPuzzleView,
    "puzzle_verdict": views.PuzzleVerdictView, "puzzle_steps": views.PuzzleStepsView,
    "deck": views.DeckView, "deck_next": views.DeckNextView, "deck_review": views.DeckReviewView,
    "explorer_position": views.ExplorerPositionView, "rollout": views.RolloutView,
    "choices": list[views.ChoiceView], "profile": views.ProfileView,
    "tournaments": views.TournamentListView, "tournament": views.TournamentDetailView,
}
"""The response type of each kind of HTTP answer (``app.py`` names them per route)."""


# -- validation: the types as pydantic checks them -----------------------------------------------

_STRICT = ConfigDict(extra="forbid", strict=True)
for _module in (sys.modules[__name__], views):
    for _value in list(vars(_module).values()):
        if is_typeddict(_value) and _value.__module__ == _module.__name__:
            _value.__pydantic_config__ = _STRICT

SERVER_MESSAGES: TypeAdapter[Any] = TypeAdapter(ServerMessage)
"""The strict validator of :data:`ServerMessage` (unknown fields refused)."""


def server_message_errors(data: Any) -> list[str]:
    """What is wrong with ``data`` as a server message (decoded JSON): an empty list when it
    is one of :data:`ServerMessage`, exactly (no field missing, none unknown, no wrong
    type)."""
    try:
        SERVER_MESSAGES.validate_python(data)
    except ValidationError as error:
        return [f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors()]
    return []


def response_adapter(kind: str) -> TypeAdapter[Any]:
    """The strict validator of an HTTP answer of ``kind`` (a key of :data:`RESPONSES`)."""
    return _adapters.setdefault(kind, TypeAdapter(RESPONSES[kind]))


_adapters: dict[str, TypeAdapter[Any]] = {}


def _type_names(union: Any) -> frozenset[str]:
    """The ``type`` values of a union of TypedDicts."""
    return frozenset(name for member in get_args(union)
                     for name in get_args(get_type_hints(member)["type"]))


SERVER_TYPES = _type_names(get_args(ServerMessage)[0])
"""The ``type`` of every message the server sends (as :data:`TYPES` for the client's)."""
