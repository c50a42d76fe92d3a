"""readers' "this was it" per cause, and the reference a gap's confident answer disputed

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('cause_outcome',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('reference_id', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('cause', sa.Integer(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('cause_outcome', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_cause_outcome_reference_id'), ['reference_id'], unique=False)
    with op.batch_alter_table('gap', schema=None) as batch_op:
        batch_op.add_column(sa.Column('disputed_id', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('gap', schema=None) as batch_op:
        batch_op.drop_column('disputed_id')
    with op.batch_alter_table('cause_outcome', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_cause_outcome_reference_id'))
    op.drop_table('cause_outcome')
