"""Managed engines: llama-server, vLLM and SGLang command lines, the engine process for a batch, the offline model."""
