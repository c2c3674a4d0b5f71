"""Post-match analyses: one row per match and analysis depth (plies), with the state of
the work (queued, running, done, failed), its progress in games, and the analysis JSON
(the shape of ``gammon analyze --format json``) once done.
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    op.create_table(
        "match_analyses",
        sa.Column("match_id", sa.String(24), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("plies", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("priority", sa.Integer, nullable=False),
        sa.Column("owner", sa.String(32), nullable=True),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("done", sa.Integer, nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("result", sa.Text, nullable=True),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_index("ix_match_analyses_status", "match_analyses", ["status"])


def downgrade() -> None:
    op.drop_index("ix_match_analyses_status", "match_analyses")
    op.drop_table("match_analyses")
