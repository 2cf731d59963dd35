"""The simulator's tokenizer and its block-hash prefix cache (like vLLM's), so usage reports cached tokens."""

from __future__ import annotations

import zlib

from papers_digest.llm.budget import estimate_token_list, estimate_tokens

CACHE_BLOCK = 16  # prefix-cache granularity in tokens (vLLM's default block size)
MESSAGE_OVERHEAD = 4  # <|im_start|> role \n … <|im_end|>, as chat templates add around each message
REPLY_PRIMING = 2  # <|im_start|> assistant, appended after the last message


def modelled_length(mean: int | None, tokens: list[str]) -> int | None:
    """A completion length around `mean` (0.6x to 1.4x), the same for the same prompt in any process."""
    if not mean:
        return None
    spread = (zlib.crc32("".join(tokens).encode("utf-8")) % 1000) / 1000
    return max(1, round(mean * (0.6 + 0.8 * spread)))


def tokenize(text: str) -> list[str]:
    """The sim's tokenizer is the pipeline's documented estimate (budget.py), so counts agree exactly."""
    return estimate_token_list(text)


def approx_tokens(text: str) -> int:
    return estimate_tokens(text)


def cut_off(content: str, finish: str, max_tokens: int | None) -> tuple[str, str]:
    """An answer as an engine returns it under `max_tokens`: cut there, with finish_reason length."""
    tokens = tokenize(content)
    if max_tokens is None or len(tokens) <= max_tokens:
        return content, finish
    return "".join(tokens[:max_tokens]), "length"


def prompt_tokens(messages: list[dict[str, str]]) -> list[str]:
    """The token sequence of a chat prompt: each message wrapped in 4 template tokens, then 2 to prime."""
    tokens: list[str] = []
    for message in messages:
        tokens += ["<|im_start|>", message["role"], "\n", *tokenize(message["content"]), "<|im_end|>"]
    return [*tokens, "<|im_start|>", "assistant"]


class PrefixCache:
    """Block-hash prefix cache like vLLM's: a prompt hits as many leading full blocks as were seen before."""

    def __init__(self, block: int = CACHE_BLOCK, max_blocks: int = 2_000_000) -> None:
        self.block = block
        self.max_blocks = max_blocks
        self._seen: set[int] = set()

    def hashes(self, tokens: list[str]) -> list[int]:
        chain, out = 0, []
        for start in range(0, len(tokens) - self.block + 1, self.block):
            chain = hash((chain, tuple(tokens[start : start + self.block])))
            out.append(chain)
        return out

    def cached(self, tokens: list[str], hashes: list[int]) -> int:
        # At least the last prompt token is always computed (as in vLLM), so a repeat is not 100 % hit.
        usable = (len(tokens) - 1) // self.block
        hits = 0
        for h in hashes[:usable]:
            if h not in self._seen:
                break
            hits += 1
        return hits * self.block

    def insert(self, hashes: list[int]) -> None:
        if len(self._seen) + len(hashes) > self.max_blocks:
            self._seen.clear()  # crude eviction; tests never get near it
        self._seen.update(hashes)

    def clear(self) -> None:
        self._seen.clear()
