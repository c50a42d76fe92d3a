"""pastes kept, redacted, so that a result has a link

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-07
"""

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'kept_paste',
        sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column('text_z', sa.LargeBinary(), nullable=False),
        sa.Column('context', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('lines', sa.Integer(), nullable=False),
        sa.Column('stored_bytes', sa.Integer(), nullable=False),
        sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    with op.batch_alter_table('kept_paste', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_kept_paste_created_at'), ['created_at'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('kept_paste', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_kept_paste_created_at'))
    op.drop_table('kept_paste')
