"""Accounts and sessions: registration and sign-in (argon2id password hashes), guests, and
the sessions that sign a browser in.

A session is a signed cookie (``gammon_session``, itsdangerous, signed with the database's
secret key or ``GAMMON_SECRET_KEY``) holding a random token; the ``sessions`` table holds
the token's SHA-256, so signing out (one session, or all of a user's) revokes it for good.
A browser without one becomes a guest on its first request that needs a player, so guests
can play at once. This process's sockets are registered by the session they were opened
with: revoking a session closes them here, and :meth:`Sessions.watch` closes those whose
session another process revoked (or that expired).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
import secrets
import time
import unicodedata
from typing import Protocol

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from itsdangerous import BadSignature, URLSafeTimedSerializer
from sqlalchemy.exc import IntegrityError

from gammon.server import protocol
from gammon.server.db import NAME_KEY_LENGTH, Repository, User, name_key
from gammon.server.hub import ServiceError

log = logging.getLogger(__name__)
COOKIE = "gammon_session"
SESSION_AGE = 30 * 24 * 3600
NAME_LENGTH = (3, 20)
"""A name's fewest and most characters (code points, after NFC)."""
INVISIBLE = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zs", "Zl", "Zp"})
"""The Unicode categories no name holds: controls, format characters (the zero-width
joiner, bidirectional marks), private-use, surrogates, unassigned, and every space."""
RESERVED_PREFIXES = ("guest-", "guest_", "bot-", "bot_")
"""Guests are ``guest-`` and a hex number; bots are ``bot-`` and their level."""
RESERVED_NAMES = frozenset({"admin", "administrator", "root", "system", "gammon",
                            "moderator", "server", "support", "guest", "bot"})
JOINED_SCRIPTS = (frozenset({"HAN", "HIRAGANA", "KATAKANA"}), frozenset({"HAN", "HANGUL"}))
"""Scripts a language writes together (Japanese; Korean), so a name may mix them."""
SIGNED_OUT = protocol.error_message(
    "unauthenticated", "no session: call /api/me, /api/login or /api/guest first")
"""The last message of a socket whose session ended (closed with code 4401)."""
BAD_TOKEN = protocol.error_message(
    "bad_token", "the API token is unknown or revoked")
"""The last message of a socket whose API token was refused or revoked (closed with code
4401)."""
TOKEN_PREFIX = "gmn_"
TOKEN = re.compile(r"^gmn_[A-Za-z0-9_-]{43}$")
"""An API token: ``gmn_`` and 32 random bytes in unpadded base64url (the prefix lets a
person, and a secret scanner, tell one at a glance)."""
TOKEN_KEY = "token:"
"""The key of a token's sockets in :attr:`Sessions.sockets`: ``token:ID``."""
# argon2id with the library's RFC 9106 "low memory" profile
hasher = PasswordHasher()
_DUMMY_HASH = hasher.hash("not a password of anyone")


class Socket(Protocol):
    """A socket as the sessions see it: its user, and a way to close it."""

    user: User

    def close(self, code: int, last: protocol.ServerMessage | None = None) -> None: ...


def stored_id(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Sessions:
    """The sessions of one server process: cookies made and read, stored sessions, and the
    sockets opened with each."""

    def __init__(self, repo: Repository, key: str, *, secure: bool) -> None:
        self.repo = repo
        self.signer = URLSafeTimedSerializer(key, salt="gammon-session")
        self.secure = secure
        self.sockets: dict[str, set[Socket]] = {}
        """Session id -> the sockets of this process opened with it."""

    def session_id(self, cookie: str | None) -> str | None:
        """The stored id of the session whose token ``cookie`` holds (its SHA-256), or None
        without a well-signed cookie of this kind (one holding a bare user id, from before
        sessions were stored, is refused: it could not be revoked)."""
        if not cookie:
            return None
        try:
            data = self.signer.loads(cookie, max_age=SESSION_AGE)
        except BadSignature:
            return None
        token = data.get("sid") if isinstance(data, dict) else None
        return stored_id(token) if isinstance(token, str) else None

    async def session(self, cookie: str | None) -> tuple[str, User] | None:
        """The live session of ``cookie`` (its stored id and user), or None."""
        session_id = self.session_id(cookie)
        if session_id is None:
            return None
        user = await self.repo.session_user(session_id)
        return None if user is None else (session_id, user)

    async def sign_in(self, user: User, previous: str | None) -> str:
        """A new stored session for ``user``: the cookie that holds its random token. The
        session of the cookie ``previous`` (a guest's, say) is revoked."""
        previous_id = self.session_id(previous)
        if previous_id is not None:
            await self.revoke([previous_id])
        token = secrets.token_urlsafe(32)
        await self.repo.create_session(stored_id(token), user.id, time.time() + SESSION_AGE)
        return self.signer.dumps({"sid": token})

    async def revoke(self, session_ids: list[str] | None = None, *,
                     user_id: int | None = None) -> int:
        """Revoke sessions (by stored id, or every one of ``user_id``) and close this
        process's sockets opened with them; other processes close theirs at their next
        check (:meth:`watch`). How many sessions of ``user_id`` there were (0 when revoking
        by id)."""
        count = 0
        if user_id is not None:
            count = await self.repo.revoke_sessions(user_id)
        for session_id in session_ids or ():
            await self.repo.revoke_session(session_id)
        for session_id, conns in list(self.sockets.items()):
            if session_id in (session_ids or ()) or any(c.user.id == user_id for c in conns):
                for conn in list(conns):
                    conn.close(4401, SIGNED_OUT)
        return count

    def opened(self, session_id: str, conn: Socket) -> None:
        self.sockets.setdefault(session_id, set()).add(conn)

    def closed(self, session_id: str, conn: Socket) -> None:
        same_session = self.sockets.get(session_id, set())
        same_session.discard(conn)
        if not same_session:
            self.sockets.pop(session_id, None)

    async def revoke_token(self, user: User, token_id: int) -> bool:
        """Revoke one of ``user``'s API tokens and close this process's sockets opened with
        it (the others close theirs at their next check); False if there is no such token
        of theirs."""
        if not await self.repo.revoke_token(user.id, token_id):
            return False
        for conn in list(self.sockets.get(f"{TOKEN_KEY}{token_id}", ())):
            conn.close(4401, BAD_TOKEN)
        return True

    async def watch(self, interval: float) -> None:
        """Every ``interval`` seconds, check that the sessions of this process's open
        sockets still live (another process may have revoked one, or it expired) and close
        the sockets of those that do not (4401). One query for all of them: a query per
        socket and ping (2,000 sockets: 200 queries a second) exhausted the connection pool
        at 1,000 matches."""
        while True:
            await asyncio.sleep(interval)
            checked = [key for key in self.sockets if not key.startswith(TOKEN_KEY)]
            tokens = [int(key[len(TOKEN_KEY):]) for key in self.sockets
                      if key.startswith(TOKEN_KEY)]
            if not checked and not tokens:
                continue
            try:
                alive = await self.repo.live_sessions(checked) if checked else set()
                alive |= {f"{TOKEN_KEY}{token_id}" for token_id in
                          (await self.repo.live_tokens(tokens) if tokens else set())}
            except Exception:  # the database is away: the next round checks again
                log.exception("session check failed")
                continue
            for key in [*checked, *(f"{TOKEN_KEY}{token_id}" for token_id in tokens)]:
                if key not in alive:
                    last = BAD_TOKEN if key.startswith(TOKEN_KEY) else SIGNED_OUT
                    for conn in list(self.sockets.get(key, ())):
                        conn.close(4401, last)


# -- API tokens (the Bot API) -----------------------------------------------------------


def new_token() -> tuple[str, str]:
    """A new API token and the SHA-256 the server stores of it. A plain, fast hash is
    enough here, unlike for a password: the token is 256 random bits, so no guess or
    dictionary finds one from its hash, and a fast hash lets every request look its token
    up by the hash (an index), not try a slow one against every row."""
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    return token, stored_id(token)


def bearer_token(header: str) -> str:
    """The token of an ``Authorization`` header's value, or the ``bad_token`` refusal
    that says what is wrong with it."""
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer":
        raise ServiceError("bad_token", "the Authorization header is 'Bearer <token>'")
    token = token.strip()
    if not TOKEN.match(token):
        raise ServiceError("bad_token", "not an API token (gmn_ and 43 characters)")
    return token


async def token_user(repo: Repository, header: str) -> tuple[int, User]:
    """The token's id and its user for an ``Authorization`` header's value: a live token
    of a bot account with the ``bot:play`` scope, else ``bad_token`` (malformed, unknown,
    revoked) or ``not_a_bot``."""
    found = await repo.token_user(stored_id(bearer_token(header)))
    if found is None:
        raise ServiceError("bad_token", "the API token is unknown or revoked")
    token_id, scopes, user = found
    if "bot:play" not in scopes or not user.bot_account:
        raise ServiceError("not_a_bot", "only a bot account's bot:play token plays")
    return token_id, user


# -- accounts ----------------------------------------------------------------------------


async def new_guest(repo: Repository) -> User:
    for _ in range(5):
        try:
            return await repo.create_user(f"guest-{secrets.token_hex(4)}", "guest")
        except IntegrityError:
            continue
    raise ServiceError("internal", "could not name a guest")


def script_of(letter: str) -> str | None:
    """The script of a letter, from its Unicode name ("LATIN SMALL LETTER A": LATIN;
    "CJK UNIFIED IDEOGRAPH-4E00": HAN), which the standard library lacks as a property;
    None for a modifier letter (the Hawaiian ʻokina), which goes with any script."""
    words = unicodedata.name(letter, "").split()
    if not words or words[0] == "MODIFIER":
        return None
    return {"CJK": "HAN", "KATAKANA-HIRAGANA": "KATAKANA"}.get(words[0], words[0])


def mixes_scripts(name: str) -> set[str] | None:
    """The scripts of ``name``'s letters when they mix scripts — Latin with Cyrillic
    look-alikes ("pаul" with a Cyrillic а) is how one name poses as another — or None
    when they are of one script (or of scripts one language writes together)."""
    scripts = {script for char in name if unicodedata.category(char).startswith("L")
               if (script := script_of(char)) is not None}
    if len(scripts) <= 1 or any(scripts <= joined for joined in JOINED_SCRIPTS):
        return None
    return scripts


def checked_name(name: str) -> str:
    """``name`` as it is stored (NFC), or the ``bad_name`` refusal that says what is wrong
    with it. A name is 3-20 letters of one script (any script: Łukasz, Ádám, Хельга, 李小龍),
    ASCII digits, '_' and '-', starting with a letter; not a reserved name."""
    name = unicodedata.normalize("NFC", name)
    if any(unicodedata.category(char) in INVISIBLE for char in name):
        raise ServiceError("bad_name", "a name has no spaces, control or invisible characters")
    low, high = NAME_LENGTH
    if not low <= len(name) <= high:
        raise ServiceError("bad_name", f"a name has {low} to {high} characters")
    # after the first letter: letters, combining marks (accents, vowel signs), digits, _ -
    if not unicodedata.category(name[0]).startswith("L") or not all(
            unicodedata.category(char)[0] in "LM" or char in "0123456789_-"
            for char in name[1:]):
        raise ServiceError("bad_name", "a name is letters, digits 0-9, '_' or '-', "
                                       "starting with a letter")
    if unicodedata.normalize("NFKC", name) != name:
        raise ServiceError("bad_name", "a name has ordinary letters, not styled forms "
                                       "(fullwidth, superscript, mathematical, ligatures)")
    scripts = mixes_scripts(name)
    if scripts is not None:
        raise ServiceError("bad_name", "a name's letters come from one script, not "
                                       f"several ({', '.join(sorted(scripts)).lower()})")
    key = name_key(name)
    if key in RESERVED_NAMES or key.startswith(RESERVED_PREFIXES):
        raise ServiceError("bad_name", "that name is reserved")
    if len(key) > NAME_KEY_LENGTH:
        raise ServiceError("bad_name", "that name is too long")
    return name


async def register(repo: Repository, name: str, password: str) -> User:
    """A new registered player, or a refusal: ``bad_name`` (:func:`checked_name` says
    why), ``weak_password``, ``name_taken`` (by the same name in any case: the names'
    :func:`~gammon.server.db.name_key`)."""
    name = checked_name(name)
    if len(password) < 8:
        raise ServiceError("weak_password", "a password has at least 8 characters")
    digest = await asyncio.to_thread(hasher.hash, password)
    try:
        return await repo.create_user(name, "user", digest)
    except IntegrityError:
        raise ServiceError("name_taken", "that name is taken") from None


async def login(repo: Repository, name: str, password: str) -> User:
    """The player of ``name`` (in any case and normal form) if ``password`` is theirs,
    else ``bad_credentials``: a wrong name and a wrong password get the same answer in the
    same time."""
    found = await repo.user_by_name(name)
    digest = found[1] if found is not None and found[1] else _DUMMY_HASH
    ok: bool
    try:
        ok = await asyncio.to_thread(hasher.verify, digest, password)
    except (VerificationError, InvalidHashError):
        ok = False
    if not ok or found is None or not found[1]:
        raise ServiceError("bad_credentials", "wrong name or password")
    user = found[0]
    if hasher.check_needs_rehash(digest):
        await repo.set_password(user.id, await asyncio.to_thread(hasher.hash, password))
    return user
