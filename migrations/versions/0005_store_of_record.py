"""imported hash of each reference, and conflicts between the folder and the database

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('conflict',
    sa.Column('reference_id', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('folder_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
    sa.Column('folder_text', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
    sa.Column('database_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('found_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('reference_id')
    )
    with op.batch_alter_table('reference', schema=None) as batch_op:
        batch_op.add_column(sa.Column('imported_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True))
    # Every row so far came from the folder (saves wrote the file too): its text is its import.
    reference = sa.table('reference', sa.column('content_hash'), sa.column('imported_hash'))
    op.execute(reference.update().values(imported_hash=reference.c.content_hash))


def downgrade() -> None:
    with op.batch_alter_table('reference', schema=None) as batch_op:
        batch_op.drop_column('imported_hash')
    op.drop_table('conflict')
