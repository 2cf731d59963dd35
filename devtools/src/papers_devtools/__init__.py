"""papers-digest's development tools: the engine simulator, the HF/arXiv replay and what tests and benches share."""
