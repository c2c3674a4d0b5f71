"""Tournaments (knockout, Swiss, arena): ``tournaments`` (the settings chosen by the
organiser and the state: registering, running, finished or cancelled, the current round),
``tournament_entries`` (the players, their rating at the start, withdrawn or not),
``tournament_pairings`` (each round's pairs, the real match each made, the winner) and
``tournament_seats`` (a row per player and round: nobody is paired twice in a round)."""

import sqlalchemy as sa
from alembic import op

revision = "0010_tournaments"
down_revision = "0009_learning"


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("slug", sa.String(16), nullable=False, unique=True),
        sa.Column("name", sa.String(60), nullable=False),
        sa.Column("format", sa.String(10), nullable=False),
        sa.Column("length", sa.Integer, nullable=False),
        sa.Column("clock", sa.String(20), nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("starts_at", sa.Float, nullable=True),
        sa.Column("max_players", sa.Integer, nullable=False),
        sa.Column("rounds", sa.Integer, nullable=True),
        sa.Column("duration", sa.Float, nullable=True),
        sa.Column("private", sa.Boolean, nullable=False),
        sa.Column("invite_key", sa.String(32), nullable=True),
        sa.Column("organiser", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("state", sa.String(12), nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("started_at", sa.Float, nullable=True),
        sa.Column("finished_at", sa.Float, nullable=True),
    )
    op.create_index("ix_tournaments_state", "tournaments", ["state"])
    op.create_table(
        "tournament_entries",
        sa.Column("tournament_id", sa.Integer, sa.ForeignKey("tournaments.id"),
                  primary_key=True, autoincrement=False),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True,
                  autoincrement=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("entered_at", sa.Float, nullable=False),
        sa.Column("withdrawn", sa.Boolean, nullable=False),
    )
    op.create_table(
        "tournament_pairings",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("tournament_id", sa.Integer, sa.ForeignKey("tournaments.id"),
                  nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("board", sa.Integer, nullable=False),
        sa.Column("first", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("second", sa.Integer, sa.ForeignKey("users.id"), nullable=True),
        sa.Column("match_id", sa.String(24), sa.ForeignKey("matches.id"), nullable=True,
                  unique=True),
        sa.Column("winner", sa.Integer, nullable=True),
        sa.Column("reason", sa.String(10), nullable=True),
        sa.Column("made_at", sa.Float, nullable=False),
        sa.Column("finished_at", sa.Float, nullable=True),
        sa.UniqueConstraint("tournament_id", "round", "board",
                            name="uq_tournament_pairings_board"),
    )
    op.create_table(
        "tournament_seats",
        sa.Column("tournament_id", sa.Integer, sa.ForeignKey("tournaments.id"),
                  primary_key=True, autoincrement=False),
        sa.Column("round", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True,
                  autoincrement=False),
        sa.Column("pairing_id", sa.Integer, sa.ForeignKey("tournament_pairings.id"),
                  nullable=False),
    )


def downgrade() -> None:
    op.drop_table("tournament_seats")
    op.drop_table("tournament_pairings")
    op.drop_table("tournament_entries")
    op.drop_index("ix_tournaments_state", "tournaments")
    op.drop_table("tournaments")
