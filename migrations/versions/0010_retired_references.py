"""references retired on purpose: why, by whom, and what replaced them

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-07
"""

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'retired_reference',
        sa.Column('reference_id', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
        sa.Column('title', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('content_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column('author', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('reason', sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
        sa.Column('replaced_by', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=True),
        sa.Column('retired_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint('reference_id'),
    )


def downgrade() -> None:
    op.drop_table('retired_reference')
