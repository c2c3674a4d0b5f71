"""Play now's pools: one row per waiting player (the primary key: nobody waits in two
pools), with the pool chosen (kind, length, clock, rated), the bot to play after a wait,
since when they wait, when a server process last saw a socket of theirs, and when their last
socket went (PROTOCOL.md, *Play now*).
"""

import sqlalchemy as sa
from alembic import op

revision = "0008_pool_seekers"
down_revision = "0007_puzzles"


def upgrade() -> None:
    op.create_table(
        "pool_seekers",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True,
              autoincrement=False),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("length", sa.Integer, nullable=False),
        sa.Column("clock", sa.String(20), nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("bot", sa.Integer, nullable=True),
        sa.Column("bot_after", sa.Integer, nullable=True),
        sa.Column("since", sa.Float, nullable=False),
        sa.Column("seen_at", sa.Float, nullable=False),
        sa.Column("left_at", sa.Float, nullable=True),
    )


def downgrade() -> None:
    op.drop_table("pool_seekers")
