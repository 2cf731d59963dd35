"""The English digest asked as one JSON answer (llm.asking: json)."""
