"""Names in any script: ``users.name_key`` becomes the name's NFC, casefolded (it was
``name.lower()``): the key :func:`gammon.server.db.name_key` makes and looks names up by.

Every stored name was ASCII until now, for which the two keys are the same; the backfill
recomputes each row's key all the same, so that a name stored any other way (a bot's, an
operator's) is found by the new lookup. A row whose new key another row already holds, or
that would not fit the column, keeps its old one (it stays unique, and its owner can still
sign in with the old spelling). No schema change: the column stays 40 characters.
"""

import unicodedata
from collections.abc import Callable

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"

users = sa.table("users", sa.column("id", sa.Integer), sa.column("name", sa.String),
                 sa.column("name_key", sa.String))


def casefolded_key(name: str) -> str:
    """gammon.server.db.name_key as of this revision (a migration keeps its own copy)."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())


def rekey(key_of: Callable[[str], str]) -> None:
    """Set every row's ``name_key`` to ``key_of(name)`` where that is free and fits."""
    connection = op.get_bind()
    rows = connection.execute(sa.select(users.c.id, users.c.name, users.c.name_key)).all()
    taken = {row.name_key for row in rows}
    for row in rows:
        key = key_of(row.name)
        if key != row.name_key and key not in taken and len(key) <= 40:
            connection.execute(users.update().where(users.c.id == row.id).values(name_key=key))
            taken.add(key)


def upgrade() -> None:
    rekey(casefolded_key)


def downgrade() -> None:
    rekey(str.lower)
