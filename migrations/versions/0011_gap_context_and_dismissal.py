"""each gap keeps the run context of its latest example, and can be set aside

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-07
"""

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('gap', schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                'context',
                sqlmodel.sql.sqltypes.AutoString(length=300),
                nullable=False,
                server_default='',
            )
        )
        batch_op.add_column(
            sa.Column('dismissed', sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table('gap', schema=None) as batch_op:
        batch_op.drop_column('dismissed')
        batch_op.drop_column('context')
