"""Fitting a paper into the context budget."""
