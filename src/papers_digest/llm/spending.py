"""A day's ceiling on spent tokens (llm.budget_tokens_per_day): a call reserves its estimate before it is sent.

The day's tokens so far (the English stage's calls, for the translation stage) plus an estimate for every
call in flight, plus this call's own estimate, must stay within the budget, or the call is not sent: the
ceiling holds even when `llm.concurrency` calls start at once. A call's estimate is its prompt's estimated
tokens plus its answer's cap (`max_tokens`), or COMPLETION_GUESS when it has none. Answers served from the
store cost nothing and are not counted (docs/operations.md, "A ceiling on spending").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from papers_digest.core.models import CallRecord
from papers_digest.llm.budget import estimate_tokens

COMPLETION_GUESS = 1000  # tokens reserved for an answer without a cap: about a digest's length


@dataclass
class TokenBudget:
    """The day's tokens spent and reserved against `limit` (None: no ceiling, every call is admitted)."""

    limit: int | None
    used: int = 0  # prompt + completion tokens of the day's answered calls
    reserved: int = 0  # the estimates of the calls in flight

    def admit(self, estimate: int) -> bool:
        """Reserve `estimate` tokens for a call about to be sent; False (nothing reserved) past the ceiling."""
        if self.limit is not None and self.used + self.reserved + estimate > self.limit:
            return False
        self.reserved += estimate
        return True

    def settle(self, estimate: int, spent: int) -> None:
        """A call admitted with `estimate` ended, having spent `spent` tokens."""
        self.reserved -= estimate
        self.used += spent

    def refusal(self) -> str:
        return f"budget reached: {self.used} of {self.limit} tokens used"


def call_estimate(messages: Iterable[dict[str, str]], max_tokens: int | None) -> int:
    """What a call may spend: its prompt's estimated tokens and its answer's cap."""
    prompt = sum(estimate_tokens(m.get("content") or "") for m in messages)
    return prompt + (max_tokens if max_tokens is not None else COMPLETION_GUESS)


def tokens_spent(calls: Iterable[CallRecord]) -> int:
    """Prompt + completion tokens the endpoint was asked for in these calls (store answers cost nothing)."""
    return sum((c.prompt_tokens or 0) + (c.completion_tokens or 0) for c in calls if not c.from_store)
