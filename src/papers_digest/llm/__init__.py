"""Talking to an OpenAI-compatible endpoint: the chat client, its side routes, prompts, the context budget and
checked generation."""
