"""The names in an English text: methods, models, datasets and acronyms, read from their spelling (pure).

A name is a word a translation keeps as it is: one with capitals inside or digits (MergeVQ, vsGRPO-2B,
Qwen2-VL-7B, GPT-4o, ImageNet), or an acronym (GRPO, KV, MLLMs). Hyphen- and dot-joined parts stay one
name (DeepSeek-R1-Zero, Qwen2.5), but an ordinary English word joined to a name is no part of it
("R1-Zero-like" is the name R1-Zero; "VQ-based" the name VQ). A capitalised word alone (a sentence's first
word, "Figure") is no name; a paper's own one-word name is read from its title (`title_names`).
"""

from __future__ import annotations

import functools
import re

from lemminflect import getAllLemmas

# A word and the parts joined to it by hyphens or dots (a dot only between letters or digits: "Qwen2.5", never
# a sentence's full stop); a trailing "+" belongs to a name ("ILLUME+").
# Boundaries are ASCII: a name may stand right beside a Chinese character ("基于MergeVQ的").
_WORD_RE = re.compile(r"(?<![A-Za-z0-9_.\-])[A-Za-z0-9]+(?:[-.][A-Za-z0-9]+)*\+*")
_URL_RE = re.compile(r"(?:https?://|www\.)\S+|\b[\w.+-]+@[\w-]+\.[\w.]+")
_PART_SPLIT_RE = re.compile(r"[-.]")
# A figure with its unit is a number, not a name ("7B", "100k", "2.5x"): the checker's numbers rules own it.
_FIGURE_RE = re.compile(r"^\d+(?:\.\d+)?(?:[kKMBx×%]|[kKM]?B)?$")
# An abbreviation before a name is part of it ("Dr. GRPO").
_TITLE_ABBREVIATION_RE = re.compile(r"\b(Dr|Mr|Ms|Mrs|St|Prof)\.\s+$")
# How far before a word its title is looked for: searched from the text's start, a full text's names took seconds.
_TITLE_REACH = 24
# Ordinary English words that join a name as a compound's second half: "R1-Zero-like", "VQ-based",
# "LLM-generated". Dropped from the name's end, so the translation renders them (类…的, 基于…的, …生成的).
_COMPOUND_TAILS = frozenset((
    "like", "based", "aware", "specific", "free", "level", "wise", "style", "driven", "guided", "conditioned",
    "only", "shot", "scale", "sized", "size", "related", "agnostic", "friendly", "centric", "oriented",
    "enhanced", "augmented", "powered", "generated", "assisted", "tuned", "trained", "type", "bound", "intensive",
    "efficient", "compatible", "dependent", "independent", "native", "ready", "grade", "class", "family",
    "series", "variant", "variants", "version", "versions", "style", "equipped", "enabled", "induced", "informed",
    "inspired", "motivated", "supervised", "annotated", "labeled", "labelled", "written", "produced", "synthesized",
))  # fmt: skip
_STOPWORDS = frozenset(("of", "and", "the", "for", "with", "in", "on", "to", "a", "an", "by", "from", "via", "&"))
# An acronym written in a text ("AR", "LLMs"), and a word of plain letters (spelled_out).
_CAPITALS_RE = re.compile(r"(?<![\w-])([A-Z]{2,5})s?(?![\w-])")
# A year written after an acronym, its edition: "AIME 2024", "HMMT 2025" (not "2025, " of a date list).
_EDITION_RE = re.compile(r" (?:19|20)\d\d\b(?![.,]\d|%)")
_PLAIN_WORD_RE = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")
# Words that function in a sentence (lemminflect's tables hold only nouns, verbs, adjectives and adverbs).
_FUNCTION_WORDS = frozenset((
    "a", "an", "the", "of", "at", "in", "on", "for", "to", "and", "or", "but", "nor", "with", "by", "from", "as",
    "into", "onto", "upon", "about", "over", "under", "than", "then", "that", "this", "these", "those", "which",
    "who", "whom", "whose", "what", "when", "where", "while", "is", "are", "was", "were", "be", "been", "being", "it",
    "its", "their", "our", "we", "they", "you", "he", "she", "his", "her", "not", "no", "via", "per", "each",
    "every", "any", "all", "both", "either", "neither", "such", "so", "very", "also", "only", "just",
))  # fmt: skip
_DERIVED_RE = re.compile(r"(?:able|ible|ive|ous|ful|less|ness|ment|tion|sion|ity|ize|ise|ized|ised|izing|ally|ical)$")
# Capitalised words that label a part of a paper or a language, never a name kept in Latin script.
_LABEL_WORDS = frozenset((
    "figure", "fig", "table", "section", "sec", "appendix", "equation", "eq", "algorithm", "theorem", "lemma",
    "definition", "step", "stage", "part", "chapter", "english", "chinese", "japanese", "korean", "french", "german",
    "spanish",
))  # fmt: skip
_CAPITALISED_RE = re.compile(r"(?<![A-Za-z0-9_\-.])[A-Z][a-z]+(?![A-Za-z0-9_\-])")
_SENTENCE_START_RE = re.compile(r"(?:^|[.!?:;]\s+|[\"“]\s*)$")
# A capitalised word quoted alone is a name, not a quotation's first word: 2503.02130's "a \"Pro\" block design"
# (the 2025-03-10 listing at 0eb6ac4), whose Chinese failed 8 rounds of 8 for keeping it as written.
_QUOTED_ALONE_RE = re.compile(r"^\s*[\"”]")
_ACRONYM_RE = re.compile(r"^[A-Z][A-Za-z]*[A-Z][A-Za-z]*s?$|^[A-Z]{2,}s?$")
_PARENTHESIS_RE = re.compile(r"\(([^()]{1,120})\)")


def names_in(text: str) -> list[str]:
    """The names in `text`, each once, in order of first appearance (web addresses are not read)."""
    return list(_names_in(text))


@functools.lru_cache(maxsize=256)
def _names_in(text: str) -> tuple[str, ...]:
    """names_in's reading, kept: the checker reads a paper's names for every digest and round it judges."""
    text = _URL_RE.sub(lambda m: " " * len(m.group()), text)
    found: list[str] = []
    for match in _WORD_RE.finditer(text):
        name = _name_of(match.group())
        if name is None:
            continue
        before = _TITLE_ABBREVIATION_RE.search(text, max(0, match.start() - _TITLE_REACH), match.start())
        if before is not None and name == match.group()[: len(name)]:
            name = text[before.start() : match.start()] + name
            name = " ".join(name.split())
        year = _EDITION_RE.match(text, match.start() + len(name)) if name == match.group() else None
        if year is not None and _CAPITALS_RE.fullmatch(name):
            name += year.group()  # a benchmark's edition: "HMMT 2025", not HMMT and a year (2025年 in Chinese)
        if name not in found:
            found.append(name)
    return tuple(found)


def proper_nouns(text: str) -> list[str]:
    """Capitalised words inside a sentence that are no name by their spelling: "Apple Silicon", "Llama",
    "Mistral"; not a sentence's first word, not a label ("Figure 3"), not the words an acronym stands for, and
    none in a title whose words are all capitalised."""
    words = re.findall(r"[A-Za-z]{4,}", text)
    if words and sum(w[0].isupper() for w in words) > 0.8 * len(words):  # Title Case: every word looks proper
        return []
    defined = " ".join(acronym_definitions(" ".join(text.split())).values())
    found = []
    for match in _CAPITALISED_RE.finditer(text):
        word = match.group()
        opens = _SENTENCE_START_RE.search(text[: match.start()]) and not _QUOTED_ALONE_RE.match(text[match.end() :])
        if opens or word.casefold() in _LABEL_WORDS or word in defined:
            continue
        if word not in found:
            found.append(word)
    return found


def acronyms_in(text: str) -> list[str]:
    """The acronyms a text writes, in order, once each: two to five capitals ("AR", "VQ", "GRPO"; "LLMs" as LLM)."""
    return list(dict.fromkeys(_CAPITALS_RE.findall(text)))


def spelled_out(text: str, acronym: str) -> list[str]:
    """The runs of words of `text` whose initials spell `acronym` ("augmented reality" for AR) and that could
    name a thing: no function word, no verb but a participle ("augmented"), a noun last. A hyphen-joined word
    counts each of its parts, a function word among them too ("time-to-completion" for TTC: PaCoRe's test-time
    compute, in the run at 6f6e3a3)."""
    words = _PLAIN_WORD_RE.findall(text)
    parts = [(word.split("-"), word) for word in words]
    found = []
    for start in range(len(parts)):
        run, initials = [], ""
        for pieces, word in parts[start:]:
            run.append(word)
            initials += "".join(p[0] for p in pieces)
            if len(initials) >= len(acronym):
                break
        ends = run[-1].rsplit("-", 1)[-1]
        if (
            initials.upper() == acronym
            and all(_may_name(w) for w in run if "-" not in w)
            and all(_may_name(p) for w in run if "-" in w for p in (w.split("-")[0], w.split("-")[-1]))
            and "NOUN" in getAllLemmas(ends.casefold())
        ):
            found.append(" ".join(run))
    return found


def _may_name(word: str) -> bool:
    folded = word.casefold()
    if folded in _FUNCTION_WORDS:
        return False
    lemmas = set(getAllLemmas(folded))
    return folded.endswith(("ed", "ing", "en")) or bool(lemmas - {"VERB", "ADV"})


def is_ordinary_word(word: str) -> bool:
    """Whether a word is an ordinary English word (in lemminflect's tables in any of its forms, a function word,
    or built with an English derivational ending: "scalable"), not an identifier like "vllm" or "cpp"."""
    folded = word.casefold()
    if folded in _FUNCTION_WORDS or getAllLemmas(folded):
        return True
    if len(folded) > 5 and _DERIVED_RE.search(folded) is not None:
        return True
    # an adverb of an ordinary word, which lemminflect's tables lack: "seamlessly" (left in English in the
    # sample's MergeVQ method at d9e4f29 and let through), "happily", "truly"
    stems = (folded[:-2], folded[:-3] + "y", folded[:-2] + "e") if folded.endswith("ly") and len(folded) > 5 else ()
    return any(getAllLemmas(stem) or _DERIVED_RE.search(stem) for stem in stems)


def title_names(title: str) -> list[str]:
    """The names of a paper's title: `names_in` and its own name, the one or two words before a colon
    ("Soohak: …", "AnimeGamer: …"), which may be an ordinary-looking word."""
    names = names_in(title)
    head, colon, _ = title.partition(":")
    head = " ".join(head.split())
    if colon and 0 < len(head.split()) <= 2 and head not in names and not head.islower():
        names.insert(0, head)
    return names


def acronym_definitions(text: str) -> dict[str, str]:
    """Acronyms defined in `text`, each with the words it stands for: "Group Relative Policy Optimization
    (GRPO)" and "GRPO (Group Relative Policy Optimization)" both give {"GRPO": "Group Relative Policy
    Optimization"}, only where the words' initials (and a hyphenated word's parts, a word's inner capitals)
    spell the acronym; small words (of, and, the, …) may stand in it or not."""
    definitions: dict[str, str] = {}
    for match in _PARENTHESIS_RE.finditer(text):
        inside = match.group(1).strip()
        if _ACRONYM_RE.match(inside):  # "… words (ACR)"
            before = text[: match.start()].split()
            phrase = _spelled_by(inside, before[-(len(inside) + 4) :])
        else:  # "ACR (words …)"
            head = text[: match.start()].split()
            acronym = head[-1] if head else ""
            if not _ACRONYM_RE.match(acronym):
                continue
            words = inside.split()
            phrase = " ".join(words) if _spells(_letters(acronym), words) else None
            inside = acronym
        if phrase and inside not in definitions:
            definitions[inside] = phrase
    return definitions


def _name_of(word: str) -> str | None:
    """The name a word holds, or None: ordinary words joined at its ends dropped (`_COMPOUND_TAILS` at the
    end, any lower-case word at the start: "non-GRPO", "text-to-SQL")."""
    if _FIGURE_RE.match(word):
        return None
    if "." in word and all(len(p) > 1 for p in word.split(".")):  # an identifier ("llama.cpp"), not "e.g"
        return word
    parts = _PART_SPLIT_RE.split(word.rstrip("+"))
    joints = _PART_SPLIT_RE.findall(word.rstrip("+"))
    start, end = 0, len(parts)
    while end > start and not _is_namey(parts[end - 1]) and parts[end - 1].casefold() in _COMPOUND_TAILS:
        end -= 1
    while start < end and parts[start].isalpha() and parts[start].islower():
        start += 1
    kept = parts[start:end]
    if not any(_is_namey(part) for part in kept):
        return None
    name = kept[0] + "".join(j + p for j, p in zip(joints[start : end - 1], kept[1:], strict=True))
    plus = word[len(word.rstrip("+")) :] if end == len(parts) else ""
    return None if _FIGURE_RE.match(name) else name + plus


def _is_namey(part: str) -> bool:
    """A part that makes a word a name: letters with digits ("Qwen2", "4o", "R1"), an acronym ("GRPO",
    "MLLMs"), or capitals inside ("MergeVQ", "vsGRPO", "DeepSeek")."""
    letters = sum(c.isalpha() for c in part)
    if letters and any(c.isdigit() for c in part):
        return True
    bare = part[:-1] if part.endswith("s") and len(part) > 2 else part
    if len(bare) >= 2 and bare.isupper():
        return True
    return any(c.isupper() for c in part[1:]) and any(c.islower() for c in part)


def _letters(acronym: str) -> str:
    """The letters an acronym spells, lower case, a plural's s aside ("MLLMs" -> "mllm")."""
    bare = acronym[:-1] if acronym.endswith("s") and acronym[:-1].isupper() else acronym
    return "".join(c for c in bare if c.isalpha()).casefold()


def _spelled_by(acronym: str, words: list[str]) -> str | None:
    """The shortest run of the last `words` whose initials spell `acronym`, starting with a word of its own."""
    letters = _letters(acronym)
    words = [w.strip(",;:\"'“”") for w in words]
    for start in range(len(words) - 1, -1, -1):
        run = words[start:]
        if run and run[0].casefold() not in _STOPWORDS and _spells(letters, run):
            return " ".join(run)
    return None


def _spells(letters: str, words: list[str]) -> bool:
    """Whether `words` spell `letters` in order: each word gives its initial (a small word may give none), and
    may go on with its hyphenated parts' initials or its inner capitals."""
    options = [_word_letters(w) for w in words]

    def match(i: int, j: int) -> bool:
        if j == len(options):
            return i == len(letters)
        small = words[j].casefold() in _STOPWORDS
        if small and match(i, j + 1):
            return True
        opts = options[j]
        if i >= len(letters) or not opts or opts[0] != letters[i]:
            return False
        k, taken = i + 1, 1
        while True:  # the word's initial, then as many of its further letters as match in order
            if match(k, j + 1):
                return True
            if taken >= len(opts) or k >= len(letters):
                return False
            nxt = opts.index(letters[k], taken) if letters[k] in opts[taken:] else -1
            if nxt < 0:
                return False
            k, taken = k + 1, nxt + 1

    return bool(letters) and match(0, 0)


def _word_letters(word: str) -> str:
    """The letters a word may give an acronym, in order: its initial, its hyphenated parts' initials and
    its inner capitals ("visual-spatial" -> "vs", "DeepSeek" -> "ds")."""
    letters = []
    for part in word.split("-"):
        if not part or not part[0].isalpha():
            continue
        letters.append(part[0])
        letters.extend(c for c in part[1:] if c.isupper())
    return "".join(letters).casefold()
