"""A digest's words, weighted, and TF-IDF between papers: what finds a paper's related papers in the archive (pure).

A paper's terms are the content words of its title and English digest (the Chinese digest translates it, so it
adds no word of its own), singular and lower case as areas are matched (day/areas.py `words_of`), each weighted
by its count, the vector scaled to length 1; the writer stores them (db/writer.py), so finding a paper's related
papers reads the rows of its own terms, never the archive's text (docs/site.md, "Related papers").
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from papers_digest.day.areas import words_of

QUERY_TERMS = 48  # a paper's terms of highest TF-IDF that look for its related papers
# The most stored rows (papers holding a term) a paper's query reads: its terms are taken best first while they fit,
# so finding a day's related papers costs the same in an archive of any size (bench/archive.py).
QUERY_POSTINGS = 2000
RELATED_PAPERS = 5  # a paper page lists at most this many
# Function words, and the words every digest uses whatever its paper is about: IDF would weigh them near zero,
# and leaving them out keeps the stored terms small.
STOP_WORDS = frozenset((
    "a", "about", "above", "across", "after", "again", "against", "all", "almost", "also", "although", "always",
    "am", "among", "an", "and", "another", "any", "are", "around", "as", "at", "be", "because", "been", "before",
    "being", "below", "between", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "done", "down",
    "during", "each", "either", "else", "even", "ever", "every", "few", "for", "from", "further", "had", "has",
    "have", "having", "he", "her", "here", "hers", "him", "his", "how", "however", "i", "if", "in", "into", "is",
    "it", "its", "itself", "just", "least", "less", "like", "made", "make", "many", "may", "me", "might", "more",
    "most", "much", "must", "my", "near", "neither", "no", "nor", "not", "now", "of", "off", "often", "on", "once",
    "one", "only", "onto", "or", "other", "others", "our", "out", "over", "own", "per", "rather", "same", "she",
    "should", "since", "so", "some", "such", "than", "that", "the", "their", "them", "then", "there", "these",
    "they", "this", "those", "though", "through", "thus", "to", "too", "toward", "under", "until", "up", "upon",
    "us", "very", "via", "was", "we", "were", "what", "when", "where", "whether", "which", "while", "who", "whom",
    "whose", "why", "will", "with", "within", "without", "would", "yet", "you", "your", "paper", "propose",
    "proposed", "present", "introduce", "introduced", "show", "shows", "shown", "study", "work", "approach",
    "achieve", "achieves", "result", "new", "novel", "existing", "use", "used", "using", "based", "enable",
    "enables", "improve", "improves", "improved", "demonstrate",
))  # fmt: skip


def digest_words(title: str, digest: Mapping[str, Any]) -> list[str]:
    """The content words of a paper's title and its English digest (one sentence, problem, method, findings,
    takeaways), singular and lower case, without stop words or bare numbers."""
    results = digest.get("results") or []
    parts = [
        title,
        *(digest.get(k) or "" for k in ("one_sentence", "problem", "method")),
        *(r.get("finding") or "" for r in results if isinstance(r, Mapping)),
        *(t for t in digest.get("takeaways") or [] if isinstance(t, str)),
    ]
    words = (w for part in parts if isinstance(part, str) for w in words_of(part))
    return [w for w in words if len(w) > 1 and w not in STOP_WORDS and not _number(w)]


def term_weights(words: Iterable[str]) -> dict[str, float]:
    """Each word's count as a vector of length 1: a long digest's words weigh no more than a short one's."""
    counts = Counter(words)
    norm = math.sqrt(sum(c * c for c in counts.values())) or 1.0
    return {term: round(count / norm, 6) for term, count in counts.items()}


def idf(df: int, documents: int) -> float:
    """A term's inverse document frequency, smoothed as scikit-learn's: never zero, never negative."""
    return math.log((1 + documents) / (1 + df)) + 1.0


def query_weights(weights: Mapping[str, float], df: Mapping[str, int], documents: int) -> dict[str, float]:
    """A paper's terms of highest TF-IDF, at most QUERY_TERMS and as many as the papers holding them fit in
    QUERY_POSTINGS (a term too common to fit is passed over: it says little of which papers are near), each
    weighted by its count and IDF squared: scored against another paper's stored weights (its counts), the sum is
    the TF-IDF dot product over these terms."""
    scored = {t: w * idf(df.get(t, 0), documents) for t, w in weights.items()}
    kept, postings = [], 0
    for term in sorted(scored, key=lambda t: (-scored[t], t)):
        if len(kept) == QUERY_TERMS:
            break
        if postings + df.get(term, 0) <= QUERY_POSTINGS:
            kept.append(term)
            postings += df.get(term, 0)
    return {t: scored[t] * idf(df.get(t, 0), documents) for t in kept}


def ranked(scores: Mapping[str, float], limit: int) -> list[str]:
    """The ids of the highest scores, best first, ties to the lower id: the same order on every run."""
    return [k for k in sorted(scores, key=lambda k: (-scores[k], k)) if scores[k] > 0][:limit]


def tfidf_cosine(
    query: Mapping[str, float], others: Mapping[str, Mapping[str, float]], df: Mapping[str, int], documents: int
) -> dict[str, float]:
    """The exact TF-IDF cosine of `query` with each of `others` over all their terms: the benchmark's yardstick for
    query_weights, which reads only a paper's best terms (bench/related.py)."""

    def vector(weights: Mapping[str, float]) -> dict[str, float]:
        v = {t: w * idf(df.get(t, 0), documents) for t, w in weights.items()}
        norm = math.sqrt(sum(x * x for x in v.values())) or 1.0
        return {t: x / norm for t, x in v.items()}

    q = vector(query)
    return {k: sum(q[t] * x for t, x in vector(w).items() if t in q) for k, w in others.items()}


def _number(word: str) -> bool:
    return not any(c.isalpha() for c in word)
