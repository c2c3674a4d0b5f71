"""Server-side sign-in sessions, so that signing out revokes a session for good.

The cookie used to hold only a signed user id, valid for 30 days whatever happened; now it
holds a random token whose SHA-256 is a row here until sign-out (or sign-out everywhere)
deletes it or it expires.
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    op.create_table(
        "sessions",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
    )
    op.create_index("ix_sessions_user_id", "sessions", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_sessions_user_id", "sessions")
    op.drop_table("sessions")
