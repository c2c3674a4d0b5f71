"""An index of the puzzle answers by player: the next puzzle leaves out those the player has
answered (``GET /api/puzzles/next``), and without it that read scanned every answer of every
player (the table's key leads with the puzzle)."""

from alembic import op

revision = "0011_puzzle_answers_by_player"
down_revision = "0010_tournaments"


def upgrade() -> None:
    op.create_index("ix_puzzle_answers_user", "puzzle_answers", ["user_id", "puzzle_id"])


def downgrade() -> None:
    op.drop_index("ix_puzzle_answers_user", "puzzle_answers")
