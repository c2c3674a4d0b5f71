"""The checker plays made in public matches, for the position explorer: ``position_choices``
(the position, the dice, the play and its player's points in that game)."""

import sqlalchemy as sa
from alembic import op

revision = "0010_position_choices"
down_revision = "0009_decks"


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


def downgrade() -> None:
    op.drop_index("ix_position_choices_position", "position_choices")
    op.drop_table("position_choices")
