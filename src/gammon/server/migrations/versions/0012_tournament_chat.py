"""A tournament's chat: ``tournament_chat``, the lines its players wrote on its page
(``POST /api/tournaments/{id}/chat``; the last 50 in ``GET /api/tournaments/{id}``)."""

import sqlalchemy as sa
from alembic import op

revision = "0012_tournament_chat"
down_revision = "0011_puzzle_answers_by_player"


def upgrade() -> None:
    op.create_table(
        "tournament_chat",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("tournament_id", sa.Integer, sa.ForeignKey("tournaments.id"),
                  nullable=False),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("text", sa.String(300), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("ix_tournament_chat_tournament", "tournament_chat",
                    ["tournament_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_tournament_chat_tournament", "tournament_chat")
    op.drop_table("tournament_chat")
