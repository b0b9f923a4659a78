"""Alembic's environment: the migrations run on the connection :mod:`tablegames.server.migrate` hands over
(``config.attributes["connection"]``, inside its transaction and, on PostgreSQL, its advisory lock)."""

from __future__ import annotations

from alembic import context

from tablegames.server.db import Base

config = context.config
connection = config.attributes.get("connection")
if connection is None or context.is_offline_mode():
    raise RuntimeError("run the migrations with `tablegames db upgrade` (tablegames.server.migrate.upgrade)")
context.configure(connection=connection, target_metadata=Base.metadata, compare_type=True)
with context.begin_transaction():
    context.run_migrations()
