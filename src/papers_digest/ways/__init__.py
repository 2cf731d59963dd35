"""The ways of asking for the English digest (llm.asking): the registry (registry.py) and one folder a way."""
