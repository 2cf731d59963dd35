"""A title's or a mind-map label's parts, in Chinese order, each with what the program writes before it.

Asked whole, the 1.5B model translates a title phrase in the English order: "Improved Visual-Spatial Reasoning
via R1-Zero-Like Training" came back as 视觉空间推理的改进通过R1-Zero式训练 (the sample run at d9e4f29), and
"A Unified Framework for Visual Generation and Representation with …" as 统一框架：视觉生成和表示的… (at
5d3d1f7). The program knows the phrase's grammar; the model is asked for its parts' words only
(docs/translation.md, "Sentence by sentence").
"""

from __future__ import annotations

import re

HEAD_WORDS = 5  # a title's or label's head before its colon, at most (its name, or a term)
THING_WORDS = 4  # a thing "for" or "with" something: a noun phrase of at most this many words, an article aside
_ARTICLE_RE = re.compile(r"^(?:A|An|The)\s+", re.I)
# A part that says how its work is done after what it does: always after "via" or "through", and after "by" before
# a gerund ("Efficient Collaborative Inference by Glimpsing One Token of Thoughts": asked whole on the 2026-01-13
# listing at 50db840, 高效协同推理通过窥视一个 Token 的思想, the English order); after "with" or "using" only where
# what it does opens with a gerund ("Boosting Accuracy with Branch-Merge Distillation", not "Softmax Attention
# with a Forget Gate").
_MEANS_RE = re.compile(
    r"(?P<what>\S.*?)\s+(?:(?P<via>via|through|by(?=\s+[\w-]+ing\b))|with|using)\s+(?P<how>\S.*)", re.I
)
# A verb of change opening a part, and its Chinese: "Improved X" is 改进的 X, "Improving X" 改进 X, and after its
# means (通过 B) the verb: 通过 B 改进 X.
_CHANGE_VERBS = {"improv": "改进", "enhanc": "增强", "boost": "提升", "accelerat": "加速", "strengthen": "加强"}
_CHANGE_RE = re.compile(rf"(?P<stem>{'|'.join(_CHANGE_VERBS)})(?P<form>ed|ing|e|es|s)?\s+(?P<rest>\S.*)", re.I)
# A noun phrase "(A) N for Y (with Z)": a thing of at most four words, what it is for and what it is built on
# ("A Unified Framework for Visual Generation and Representation with Disentangled Token Merging"); its Chinese
# is 基于 Z、用于 Y 的 N. A part that opens with a gerund is not a thing.
_THING_FOR_RE = re.compile(
    rf"(?:(?:A|An|The)\s+)?(?P<thing>(?:[\w-]+\s+){{0,{THING_WORDS - 1}}}[\w-]+)"
    r"\s+for\s+(?P<use>[^\s:][^:]*?)(?:\s+with\s+(?P<base>[^\s:][^:]*))?",
    re.I,
)


def phrase_parts(text: str) -> list[tuple[str, str]]:
    """A title's or label's parts, each with what stands before its Chinese, in Chinese order: its head and its
    rest (`head_and_rest`); a part that says how it is done after what ("A via B", "Enhancing A with B") as 通过
    B, then A; a verb of change said by the program; a thing "for Y" as 用于 Y 的 thing, a thing "with B" as 结合 B
    的 thing ("Infinite Anime Life Simulation with Next Game State Prediction": asked whole at 291fff1, it came
    back as 无限动漫游戏状态预测的模拟, the life and the next state lost)."""
    parts: list[tuple[str, str]] = []
    for index, part in enumerate(head_and_rest(text)):
        lead = "：" if index else ""
        means = _MEANS_RE.fullmatch(part)
        thing = _THING_FOR_RE.fullmatch(part)
        if means is not None and (means["via"] or _opens_with_gerund(means["what"])):
            parts += [(means["how"], f"{lead}通过"), _changed(means["what"], after_means=True)]
        elif thing is not None and _is_thing(thing["thing"]):
            based = [(thing["base"], f"{lead}基于"), (thing["use"], "、用于")] if thing["base"] else []
            parts += [*(based or [(thing["use"], f"{lead}用于")]), (thing["thing"], "的")]
        elif means is not None and _is_thing(means["what"]) and len(means["what"].split()) <= THING_WORDS + 1:
            parts += [(means["how"], f"{lead}结合"), (_ARTICLE_RE.sub("", means["what"]), "的")]
        else:
            english, before = _changed(part)
            parts.append((english, lead + before))
    return parts


def head_and_rest(text: str) -> list[str]:
    """A title or label "Head: the rest" as its two parts, each asked alone ("MergeVQ", "A Unified Framework for
    …"): asked whole, the 1.5B model dropped the head of "X1: Infinite Anime Life Simulation …" and of "Token
    Merging: Decouples top-k semantics …" in every round."""
    head, colon, rest = text.partition(": ")
    if colon and rest and len(head.split()) <= HEAD_WORDS:
        return [head, rest]
    return [text]


def _changed(part: str, after_means: bool = False) -> tuple[str, str]:
    """A part opening with a verb of change as what it changes, the verb said by the program before it ("Improved
    Visual-Spatial Reasoning" -> 改进的 + "Visual-Spatial Reasoning"; after its means, 改进 + …); other parts whole,
    a thing after its means with 实现 before it (通过 B 实现高效协同推理). Returns (its English to ask, what the
    program writes before it)."""
    change = _CHANGE_RE.fullmatch(part)
    if change is None:
        return part, "实现" * (after_means and not _opens_with_gerund(part))
    verb = _CHANGE_VERBS[change["stem"].lower()]
    participle = (change["form"] or "").lower() == "ed" and not after_means
    return change["rest"], verb + "的" * participle


def _is_thing(words: str) -> bool:
    """Whether the words before "for" name a thing: they open with no gerund ("Learning Representations for …")
    and no verb of change."""
    return not _opens_with_gerund(words) and _CHANGE_RE.match(words) is None and words.split()[0].lower() != "towards"


def _opens_with_gerund(words: str) -> bool:
    """Whether a phrase opens with a gerund ("Boosting Accuracy", "Learning to Scale …"): what it does, not a thing."""
    return words.split()[0].lower().endswith("ing")
