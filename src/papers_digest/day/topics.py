"""A paper's topics: Hugging Face's keywords, or terms of a small vocabulary its text contains, normalised (pure)."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable

from papers_digest.core.models import Paper

HF, VOCABULARY = "hf", "vocabulary"  # papers.topics_source: where a paper's topics came from
MAX_VOCABULARY_TOPICS = 6

# Spelled the way normalise_topic leaves them. Matched in a paper's own title and abstract when Hugging Face
# gave no keywords (older eras): broad fields and methods that recur across papers, so a topic gathers many.
VOCABULARY_TERMS = (
    "large language model", "vision language model", "multimodal large language model", "language model",
    "diffusion model", "video diffusion model", "flow matching", "reinforcement learning",
    "reinforcement learning from human feedback", "supervised fine tuning", "fine tuning",
    "parameter efficient fine tuning", "instruction tuning", "preference optimization",
    "direct preference optimization", "reward model", "chain of thought", "reasoning", "mathematical reasoning",
    "test time scaling", "test time compute", "in context learning", "retrieval augmented generation",
    "mixture of experts", "transformer", "attention", "state space model", "long context", "tokenizer",
    "knowledge distillation", "quantization", "pruning", "inference efficiency", "speculative decoding",
    "kv cache", "agent", "multi agent system", "tool use", "code generation", "benchmark", "evaluation",
    "dataset", "synthetic data", "data curation", "scaling law", "pretraining", "self supervised learning",
    "contrastive learning", "representation learning", "image generation", "text to image", "image editing",
    "video generation", "video understanding", "text to video", "3d generation", "3d reconstruction",
    "gaussian splatting", "neural radiance field", "novel view synthesis", "depth estimation",
    "object detection", "semantic segmentation", "image segmentation", "visual question answering",
    "speech recognition", "text to speech", "audio generation", "music generation", "robotics",
    "robot manipulation", "embodied ai", "autonomous driving", "world model", "graph neural network",
    "recommendation", "information retrieval", "question answering", "summarization", "machine translation",
    "multilingual", "hallucination", "alignment", "safety", "jailbreak", "privacy", "interpretability",
    "uncertainty", "federated learning", "continual learning", "medical imaging", "protein",
)  # fmt: skip

# Words whose final s is not a plural (or whose plural is irregular), and plurals the suffix rules get wrong.
_INVARIANT = frozenset((
    "is", "as", "was", "has", "its", "this", "does", "us", "yes", "gas", "bus", "plus", "thus", "less", "news",
    "lens", "alias", "atlas", "canvas", "chaos", "cosmos", "bias", "corpus", "status", "consensus", "focus",
    "nexus", "virus", "campus", "bonus", "census", "radius", "genius", "series", "species", "always", "perhaps",
    "across", "whereas", "various", "previous", "analogous",
))  # fmt: skip
_IRREGULAR = {
    "analyses": "analysis", "bases": "basis", "biases": "bias", "aliases": "alias", "caches": "cache",
    "niches": "niche", "indices": "index", "matrices": "matrix", "vertices": "vertex", "criteria": "criterion",
    "phenomena": "phenomenon", "hypotheses": "hypothesis", "theses": "thesis", "children": "child",
    "people": "person", "men": "man", "women": "woman", "mice": "mouse", "feet": "foot", "teeth": "tooth",
    "movies": "movie", "cookies": "cookie", "corpora": "corpus", "lenses": "lens", "statuses": "status",
}  # fmt: skip
_PARENTHESES_RE = re.compile(r"\s*[(\[][^)\]]*[)\]]")
_SEPARATOR_RE = re.compile(r"[^\w+#&.]+")  # anything but letters, digits, _, +, #, &, . separates words
_SLUG_SAFE_RE = re.compile(r"^[a-z0-9]+( [a-z0-9]+)*$")
_MAX_SLUG = 80


def singular(word: str) -> str:
    """An English plural noun -> its singular (`models` -> `model`, `policies` -> `policy`, `LLMs` -> `LLMs`
    lowercased first by the caller: `llms` -> `llm`); words that are not plurals are left as they are."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) <= 2 or not word.endswith("s") or word in _INVARIANT or not word[:-1].isalpha():
        return word
    if word.endswith(("ss", "us", "is", "ics", "ous", "'s")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes", "zzes")):
        return word[:-2]
    return word[:-1]


def normalise_topic(text: str) -> str:
    """One spelling per topic: Unicode-compatible lower case, parenthesised abbreviations dropped, hyphens
    and other separators as single spaces, the head noun singular (`Large Language Models (LLMs)` ->
    `large language model`; `Chains-of-Thought` -> `chain of thought`); "" when nothing is left."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = _PARENTHESES_RE.sub(" ", text) if _PARENTHESES_RE.sub("", text).strip() else text
    words = [w.strip(".") for w in _SEPARATOR_RE.sub(" ", text.replace("_", " ")).split()]
    words = [w for w in words if w]
    if not words:
        return ""
    # The head noun of an English noun phrase is its last word, or the word before "of" (`mixture of experts`).
    head = words.index("of", 1) - 1 if "of" in words[1:] else len(words) - 1
    words[head] = singular(words[head])
    return " ".join(words)


def normalise_topics(keywords: Iterable[str]) -> list[str]:
    """Keywords -> distinct normalised topics, in their first order."""
    seen: dict[str, None] = {}
    for keyword in keywords:
        topic = normalise_topic(keyword)
        if topic:
            seen.setdefault(topic, None)
    return list(seen)


def topic_slug(topic: str) -> str:
    """A normalised topic -> its file name stem, ASCII `[a-z0-9-]`: `large language model` ->
    `large-language-model`. A topic that does not map one to one (other characters, very long) gets a
    short hash of itself appended, so two topics never share a page."""
    if _SLUG_SAFE_RE.match(topic) and len(topic) <= _MAX_SLUG:
        return topic.replace(" ", "-")
    ascii_text = unicodedata.normalize("NFKD", topic).encode("ascii", "ignore").decode("ascii")
    base = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")[:_MAX_SLUG].strip("-")
    digest = hashlib.sha1(topic.encode("utf-8")).hexdigest()[:8]
    return f"{base}-{digest}" if base else f"topic-{digest}"


def vocabulary_topics(title: str, abstract: str, limit: int = MAX_VOCABULARY_TOPICS) -> list[str]:
    """The vocabulary's terms that the title or abstract contains (whole words, after normalising both
    the same way): those in the title first, then by how often the abstract uses them; a term inside a
    longer matched one (`language model` in `large language model`) is left out."""
    title_text, abstract_text = _matchable(title), _matchable(abstract)
    found: list[tuple[int, int, int, str]] = []
    for order, term in enumerate(VOCABULARY_TERMS):
        pattern = f" {term} "
        in_title, in_abstract = title_text.count(pattern), abstract_text.count(pattern)
        if in_title or in_abstract:
            found.append((0 if in_title else 1, -in_abstract, order, term))
    terms = [t for *_, t in sorted(found)]
    kept = [t for t in terms if not any(t != other and f" {t} " in f" {other} " for other in terms)]
    return kept[:limit]


def paper_topics(paper: Paper) -> tuple[list[str], str | None]:
    """A paper's topics and where they came from: Hugging Face's keywords when it gave any, else the
    vocabulary's terms in the paper's own title and abstract; ([], None) when neither has one."""
    topics = normalise_topics(paper.ai_keywords)
    if topics:
        return topics, HF
    topics = vocabulary_topics(paper.title, paper.summary)
    return topics, (VOCABULARY if topics else None)


def _matchable(text: str) -> str:
    """Text as a space-padded run of normalised words, every word singular, for whole-phrase matching."""
    text = unicodedata.normalize("NFKC", text).casefold()
    words = [singular(w.strip(".")) for w in _SEPARATOR_RE.sub(" ", text.replace("_", " ")).split()]
    return " " + " ".join(w for w in words if w) + " "
