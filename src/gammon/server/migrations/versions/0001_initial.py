"""The first schema: users, matches, the append-only action log, rating changes."""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("name_key", sa.String(40), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(200), nullable=True),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("experience", sa.Integer, nullable=False),
        sa.Column("options", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "matches",
        sa.Column("id", sa.String(24), primary_key=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("config", sa.Text, nullable=False),
        sa.Column("player0", sa.Integer, sa.ForeignKey("users.id"), nullable=True),
        sa.Column("player1", sa.Integer, sa.ForeignKey("users.id"), nullable=True),
        sa.Column("reserved_for", sa.Integer, nullable=True),
        sa.Column("private", sa.Boolean, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("server_seed", sa.String(64), nullable=False),
        sa.Column("seed_hash", sa.String(64), nullable=False),
        sa.Column("client_seed0", sa.String(64), nullable=False),
        sa.Column("client_seed1", sa.String(64), nullable=False),
        sa.Column("rules", sa.Text, nullable=True),
        sa.Column("winner", sa.Integer, nullable=True),
        sa.Column("result", sa.Text, nullable=True),
        sa.Column("finished_at", sa.Float, nullable=True),
        sa.Column("rematch_of", sa.String(24), nullable=True),
    )
    op.create_index("ix_matches_status", "matches", ["status"])
    op.create_table(
        "match_actions",
        sa.Column("match_id", sa.String(24), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("kind", sa.String(12), nullable=False),
        sa.Column("action", sa.Text, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_table(
        "rating_changes",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("match_id", sa.String(24), nullable=False),
        sa.Column("before", sa.Float, nullable=False),
        sa.Column("after", sa.Float, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("ix_rating_changes_user_id", "rating_changes", ["user_id"])
    op.create_table(
        "server_kv",
        sa.Column("key", sa.String(40), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("server_kv")
    op.drop_index("ix_rating_changes_user_id", "rating_changes")
    op.drop_table("rating_changes")
    op.drop_table("match_actions")
    op.drop_index("ix_matches_status", "matches")
    op.drop_table("matches")
    op.drop_table("users")
