"""The store service: typed writes, the outbox, the store and its SQLite and PostgreSQL backends. Never imports Textual."""
