"""The schema's Alembic migrations: ``env.py`` and ``versions/`` (driven by :mod:`tablegames.server.migrate`)."""
