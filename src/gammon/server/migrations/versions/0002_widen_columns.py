"""Widen the string columns that were too short for what the server writes into them.

``match_actions.kind`` held 12 characters, but ``accept_resign`` and ``reject_resign`` have
13; ``server_kv.key`` held 40, but a heartbeat key (``heartbeat:`` and a 32-digit process
id) has 42. SQLite ignores declared lengths; PostgreSQL refused those rows.
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"

# (table, column, old length, new length); the new lengths are those of gammon.server.db
WIDENED = [("match_actions", "kind", 12, 32), ("server_kv", "key", 40, 200)]


def upgrade() -> None:
    for table, column, old, new in WIDENED:
        with op.batch_alter_table(table) as batch:
            batch.alter_column(column, existing_type=sa.String(old), type_=sa.String(new),
                               existing_nullable=False)


def downgrade() -> None:
    for table, column, old, new in reversed(WIDENED):
        with op.batch_alter_table(table) as batch:
            batch.alter_column(column, existing_type=sa.String(new), type_=sa.String(old),
                               existing_nullable=False)
