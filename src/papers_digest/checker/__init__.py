"""The one checker: what an English digest and its Chinese translation must satisfy, and the schema for engines."""
