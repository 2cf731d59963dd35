"""The readers' static bilingual site and its Atom feed, rendered from the database."""
