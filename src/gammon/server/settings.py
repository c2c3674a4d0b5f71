"""Server settings, read from the environment (prefix ``GAMMON_``) and a ``.env`` file.

>>> Settings(database_url="sqlite+aiosqlite:///:memory:").bind
'127.0.0.1:8000'
"""

from __future__ import annotations

from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Everything a deployment may change. Defaults need nothing installed or started:
    an SQLite file in the working directory and the in-process bus.

    ``secret_key`` signs session cookies; when empty, a random key is generated once and
    stored in the database, so that every process sharing the database shares it.
    """

    model_config = SettingsConfigDict(env_prefix="GAMMON_", env_file=".env", extra="ignore")

    database_url: str = "sqlite+aiosqlite:///gammon.db"
    redis_url: str = ""
    secret_key: str = ""
    host: str = "127.0.0.1"
    port: int = 8000
    allowed_origins: list[str] = []
    static_dir: str = ""
    cookie_secure: bool = False
    lag_cap: float = 0.5
    """Most seconds of network lag credited back to a player per action (PROTOCOL.md)."""
    ping_interval: float = 10.0
    max_message_bytes: int = 4096
    max_open_games: int = 3
    max_chat_length: int = 300
    rate_limits: bool = True
    clock_scale: float = 1.0
    """Multiplies every clock duration of new matches (tests use small values)."""
    heartbeat_interval: float = 2.0
    """Seconds between the heartbeats a process writes to the database; at most this much
    server downtime is charged to a running clock after a crash (docs/server.md)."""
    bot_delay: float = 0.0
    """Seconds a bot waits before acting (0 in tests; a few tenths feels natural)."""

    @property
    def bind(self) -> str:
        return f"{self.host}:{self.port}"
