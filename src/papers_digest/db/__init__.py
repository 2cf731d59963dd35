"""The SQLite view of every day: the schema (defined once), the one writer and the read queries."""
