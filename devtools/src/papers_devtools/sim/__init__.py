"""The engine simulator and the HF/arXiv replay: OpenAI-compatible and recorded servers on 127.0.0.1."""
