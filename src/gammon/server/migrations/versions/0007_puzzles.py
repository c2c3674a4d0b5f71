"""Puzzles from real blunders: ``puzzles`` (one row per question, position and context,
with its graded answers, themes and Glicko-2 rating), ``puzzle_sources`` (the analysed
matches' decisions each was met at, and whether that match was public), ``puzzle_players``
(each player's puzzle rating) and ``puzzle_answers`` (one answer per player and puzzle).
"""

import sqlalchemy as sa
from alembic import op

revision = "0007_puzzles"
down_revision = "0006"


def upgrade() -> None:
    op.create_table(
        "puzzles",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("key", sa.String(64), nullable=False, unique=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("position_id", sa.String(14), nullable=False),
        sa.Column("match_id", sa.String(12), nullable=False),
        sa.Column("dice", sa.String(2), nullable=False),
        sa.Column("answers", sa.Text, nullable=False),
        sa.Column("error", sa.Float, nullable=False),
        sa.Column("graded_by", sa.String(60), nullable=False),
        sa.Column("plies", sa.Integer, nullable=False),
        sa.Column("themes", sa.String(200), nullable=False),
        sa.Column("public", sa.Boolean, nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("rd", sa.Float, nullable=False),
        sa.Column("vol", sa.Float, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("solved", sa.Integer, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_index("ix_puzzles_public_rating", "puzzles", ["public", "rating"])
    op.create_table(
        "puzzle_sources",
        sa.Column("puzzle_id", sa.Integer, sa.ForeignKey("puzzles.id"), primary_key=True),
        sa.Column("match_id", sa.String(24), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("game", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("move_number", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("player", sa.Integer, nullable=False),
        sa.Column("played", sa.String(60), nullable=False),
        sa.Column("error", sa.Float, nullable=False),
        sa.Column("public", sa.Boolean, nullable=False),
    )
    op.create_table(
        "puzzle_players",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True,
                  autoincrement=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("rd", sa.Float, nullable=False),
        sa.Column("vol", sa.Float, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("solved", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_table(
        "puzzle_answers",
        sa.Column("puzzle_id", sa.Integer, sa.ForeignKey("puzzles.id"), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("answer", sa.String(60), nullable=False),
        sa.Column("right", sa.Boolean, nullable=False),
        sa.Column("error", sa.Float, nullable=False),
        sa.Column("rating_before", sa.Float, nullable=False),
        sa.Column("rating_after", sa.Float, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("puzzle_answers")
    op.drop_table("puzzle_players")
    op.drop_table("puzzle_sources")
    op.drop_index("ix_puzzles_public_rating", "puzzles")
    op.drop_table("puzzles")
