"""the releases of the references folder that loads came from, newest last

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-04
"""

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('folder_release',
    sa.Column('stamp', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('label', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
    sa.Column('generation', sa.Integer(), nullable=False),
    sa.Column('newest_since', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('stamp')
    )
    with op.batch_alter_table('folder_release', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_folder_release_generation'), ['generation'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('folder_release', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_folder_release_generation'))
    op.drop_table('folder_release')
