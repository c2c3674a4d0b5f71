"""Learning from the site's games: each player's deck of their own mistakes, ``deck_cards``
(a card per puzzle made from one of their decisions, its FSRS state and when it is due) and
``deck_reviews`` (every review); and ``position_choices``, the checker plays made in public
matches for the position explorer (the position, the dice, the play and its player's points
in that game)."""

import sqlalchemy as sa
from alembic import op

revision = "0009_learning"
down_revision = "0008_pool_seekers"


def upgrade() -> None:
    op.create_table(
        "position_choices",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("position_id", sa.String(14), nullable=False),
        sa.Column("dice", sa.String(2), nullable=False),
        sa.Column("play", sa.String(60), nullable=False),
        sa.Column("points", sa.Integer, nullable=False),
        sa.Column("match_id", sa.String(24), sa.ForeignKey("matches.id"), nullable=False),
    )
    op.create_index("ix_position_choices_position", "position_choices",
                    ["position_id", "dice"])
    op.create_table(
        "deck_cards",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True,
                  autoincrement=False),
        sa.Column("puzzle_id", sa.Integer, sa.ForeignKey("puzzles.id"), primary_key=True,
                  autoincrement=False),
        sa.Column("card", sa.Text, nullable=False),
        sa.Column("due", sa.Float, nullable=False),
        sa.Column("reps", sa.Integer, nullable=False),
        sa.Column("lapses", sa.Integer, nullable=False),
        sa.Column("dealt_at", sa.Float, nullable=False),
    )
    op.create_index("ix_deck_cards_user_due", "deck_cards", ["user_id", "due"])
    op.create_table(
        "deck_reviews",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("puzzle_id", sa.Integer, sa.ForeignKey("puzzles.id"), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("answer", sa.String(60), nullable=False),
        sa.Column("right", sa.Boolean, nullable=False),
        sa.Column("error", sa.Float, nullable=False),
    )
    op.create_index("ix_deck_reviews_user", "deck_reviews", ["user_id", "at"])


def downgrade() -> None:
    op.drop_index("ix_position_choices_position", "position_choices")
    op.drop_table("position_choices")
    op.drop_index("ix_deck_reviews_user", "deck_reviews")
    op.drop_table("deck_reviews")
    op.drop_index("ix_deck_cards_user_due", "deck_cards")
    op.drop_table("deck_cards")
