"""each index row says which parser read it from its file

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02
"""

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('reference', schema=None) as batch_op:
        batch_op.add_column(sa.Column('reading', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('reference', schema=None) as batch_op:
        batch_op.drop_column('reading')
