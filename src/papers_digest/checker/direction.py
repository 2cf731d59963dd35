"""A figure that the English says went down keeps its direction in the Chinese (rule `zh_direction`,
docs/checker.md, "The rules"; docs/translation.md, "What the rules do not see").

On the recorded 2026-01-13 listing the 1.5B model wrote "a 25.9% latency reduction" as "提高了 … 25.9% 的延迟"
(raised the latency): every figure was there, so `zh_numbers` passed, and the reader was told the opposite. A
decrease is what a small model loses: the sentence's verb of increase ("improves", "achieves") is nearer the
start and carries over. So the rule checks one direction only, where a reading is reliable: a figure whose
nearest word of direction in the English says less ("reduction", "fewer", "lower", "drops") has a word of
decrease near it in the Chinese (降, 减, 少, 低, 缩, 省, 下, 短). An increase is not checked: Chinese says
it in too many ways ("高出", "达到", "超过", "提升") to tell a missing one from a reworded one.

Who beats whom is kept too (`beaten_made_winners`): on the same listing "surpassing GPT-5's 93.2%" came back
as GPT-5超越了93.2%的性能 (GPT-5 surpassed 93.2%). A name the English says is surpassed must not stand right
before a Chinese verb of surpassing, where Chinese puts the winner. Nor is a comparison added
(`comparisons_added`): in the sample run at 66e5049 "43.3% accuracy on AIME 2024" came back as 对比AIME 2024
(compared with AIME 2024), a benchmark made a rival. Nor is a parity said as better (`superiority_said`, with
scope.parity_only): MergeVQ's "competitive results" came back as 优秀的性能 ("excellent performance").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from papers_digest.checker.numbers import Number, normalise_for_match, numbers_in
from papers_digest.checker.qualifiers import NEGATION_RE

# English words of direction; "less than" and "fewer than" bound a figure (a hedge): they say no change.
_HEDGE_RE = re.compile(r"\b(?:less|fewer)\s+than\b", re.IGNORECASE)
_DOWN_RE = re.compile(
    r"\b(?:reduc\w*|decreas\w*|lower(?:s|ed|ing)?|fewer|less|drop(?:s|ped|ping)?|"
    r"declin\w*|cut(?:s|ting)?|shrink\w*|sav(?:e|es|ed|ing|ings)|shorter|smaller|down)\b",
    re.IGNORECASE,
)
_UP_RE = re.compile(
    r"\b(?:improv\w*|increas\w*|higher|more|gains?|boost\w*|rais\w*|rises?|grow\w*|outperform\w*|surpass\w*|"
    r"exceed\w*|achiev\w*|reach\w*|up|better|larger|faster)\b",
    re.IGNORECASE,
)
_CONJUNCTION_RE = re.compile(r"and|while|whereas|but|or|yet", re.IGNORECASE)
_ZH_DOWN_RE = re.compile(r"[降减少低缩省下短]")
# A verb of surpassing and the name after it, its beaten one: "surpassing GPT-5's 93.2%", "outperforms Qwen2-VL-72B"
_BEATS_RE = re.compile(
    r"\b(?i:outperform\w*|surpass\w*|exceed\w*|beat(?:s|ing)?|better\s+than|ahead\s+of)\s+"
    r"(?i:the\s+|both\s+|all\s+)?([A-Z][\w.\-]*\w|[a-z][\w.\-]*(?:\d|[A-Z])[\w.\-]*\w)"
)
_EN_BEATING = r"(?:'s)?\s+(?:\w+\s+){0,3}?(?i:outperform|surpass|exceed|beat)"
# the beaten name right before a Chinese verb of surpassing (two characters between at most, not 被, the passive),
# or its figure between ("GPT-5 的 93.2% 超出了…", PaCoRe's summary on the 2026-01-13 listing at eeae767)
_ZH_BEATING = r"\s*(?:的\s*[\d.]+\s*%?\s*)?[^\s，。；、,;被]{0,2}?(?:超越|超过|优于|胜过|超出|击败|领先)"
# English words that compare with what follows them, better, worse or alike
_COMPARED_RE = re.compile(
    r"\b(?:compared\s+(?:to|with)|than|versus|vs\.?|against|relative\s+to|over|outperform\w*|surpass\w*|"
    r"exceed\w*|beat\w*|rival\w*|match\w*|similar(?:ly)?\s+to|comparable\s+to|on\s+par\s+with|close\s+to|"
    r"competitive\s+with|same(?:\s+\w+){0,2}\s+as|identical\s+to|equal\s+to)\b",
    re.IGNORECASE,
)
COMPARED_WORDS = 6  # English words after a word of comparison that it compares with
# a name as Chinese writes it, a year of an edition with it (Latin letters only: \w takes Chinese characters in too)
_ZH_NAME = r"([A-Za-z][A-Za-z0-9_.\-]*[A-Za-z0-9](?:\s\d{4})?)"
_ZH_COMPARED_RES = (
    re.compile(r"(?:对比|相比于|相比|比较|相较于|相较|比起|比)\s*" + _ZH_NAME),
    # alike too: MergeVQ's finding "performs comparably … on ImageNet" came back as MergeVQ与ImageNet在效率方面相当
    # in the sample run at 661478b, a benchmark made its peer; "achieves competitive performance on ImageNet" came
    # back as 达到了与 ImageNet 相同的性能 ("the same performance as ImageNet") in the sample run at 4fd5b6c
    re.compile(
        r"与\s*" + _ZH_NAME + r"[^，。；]{0,15}?(?:相比|相较|比较|对比|相当|相似|相近|持平|一样|同等|可比|相同|等同)"
    ),
    # two names made peers by 和, the second the peer: MergeVQ's summary "performs comparably … with comparable token
    # efficiency" came back as MergeVQ 和 token 的性能相当 in the sample run at 0bcf4a6 (no 与 between: that names it)
    re.compile(
        r"[A-Za-z0-9][A-Za-z0-9_.\-]*\s*和\s*"
        + _ZH_NAME
        + r"[^，。；与跟同]{0,15}?(?:相当|相似|相近|持平|一样|可比|相同|等同)"
    ),
)
WORDS_AROUND = 4  # English words either side of a figure in which its direction is read
CHARACTERS_AROUND = 10  # Chinese characters either side of a figure in which a decrease must be said


def decreases_lost(english: str, chinese: str) -> list[str]:
    """The figures (as the English prints them) that the English says went down and that the Chinese states
    with no word of decrease near them; a figure the Chinese does not write is `zh_numbers`' concern."""
    written = numbers_in(chinese)
    norm_zh = normalise_for_match(chinese)
    lost = []
    for figure in decreasing_figures(english):
        at = [n for n in written if n.value == figure.value and n.sign == figure.sign]
        if at and not any(_ZH_DOWN_RE.search(_around(norm_zh, n)) for n in at):
            lost.append(figure.text)
    return lost


def decreasing_figures(english: str) -> list[Number]:
    """The figures of `english` whose nearest word of direction in their clause, within WORDS_AROUND words,
    says less ("a 25.9% latency reduction"; in "improves accuracy by 12% while reducing cost" 12% is an
    increase)."""
    norm = _HEDGE_RE.sub("under", normalise_for_match(english))
    found = []
    for figure in (n for n in numbers_in(norm, normalised=True) if n.counts_in_prose):
        end = figure.start + len(figure.text)
        before = _clause_words(reversed(norm[: figure.start].split()[-WORDS_AROUND:]), ahead=False)
        after = _clause_words(norm[end:].split()[:WORDS_AROUND], ahead=True)
        # words ordered by distance from the figure, the word before first on a tie
        ranked = [w for i in range(WORDS_AROUND) for side in (before, after) if i < len(side) for w in [side[i]]]
        for word in ranked:
            if _DOWN_RE.search(word):
                found.append(figure)
                break
            if _UP_RE.search(word):
                break
    return found


def _clause_words(words: Iterable[str], *, ahead: bool) -> list[str]:
    """`words` from the figure outwards, up to the end of its clause: a conjunction, or a comma or semicolon
    (the word that carries one ahead of the figure is in its clause, the one behind it is not)."""
    kept = []
    for word in words:
        if _CONJUNCTION_RE.fullmatch(word) or (not ahead and word[-1] in ",;:"):
            break
        kept.append(word)
        if ahead and word[-1] in ",;:":
            break
    return kept


def _around(text: str, number: Number) -> str:
    end = number.start + len(number.text)
    return text[max(0, number.start - CHARACTERS_AROUND) : number.start] + text[end : end + CHARACTERS_AROUND]


# Chinese words that claim better or the best: what a translation of a parity must not say (MergeVQ's
# "competitive results" came back as 优秀的性能, "excellent performance", in the sample run at e6798fc).
_ZH_SUPERIORITY_RE = re.compile(r"优于|超越|超过|胜过|优秀|卓越|出色|领先|更好|更优|最佳|最好|最先进|更高|更强")


# Chinese words of a gain: what a translation of a level must not say (MergeVQ's "It also achieves favorable
# token efficiency and inference speed" came back as 实现了 token 的效率和推理速度的改进 in the sample run at
# eb60280). 增强 is left out: it renders "augmented" in terms (检索增强生成).
_ZH_GAIN_RE = re.compile(r"提高|提升|改进|改善|增加|加快|加速")


def gain_said(chinese: str) -> str | None:
    """The first Chinese word of `chinese` that claims a gain, or None."""
    found = _ZH_GAIN_RE.search(chinese)
    return found.group(0) if found else None


def superiority_said(chinese: str) -> str | None:
    """The first Chinese word of `chinese` that claims better or the best, or None."""
    found = _ZH_SUPERIORITY_RE.search(chinese)
    return found.group(0) if found else None


# A Chinese negation: 不, 没(有), 无, 非, 未, 免 ("不使用模板", "无需监督微调", "免查找").
_ZH_NEGATION_RE = re.compile(r"[不没无非未免勿别]")


def negation_lost(english: str, chinese: str) -> str | None:
    """The English's negation ("no template") where the Chinese has none: R1-Zero's "Using no template can
    dramatically improve the average performance" came back as 使用模板可以显著提高平均性能 ("using templates"), in
    the sample run at 7dc4d1a."""
    negation = NEGATION_RE.search(english)
    if negation is None or _ZH_NEGATION_RE.search(chinese):
        return None
    return negation.group(0)


def beaten_made_winners(english: str, chinese: str) -> list[str]:
    """The names the English says are surpassed ("surpassing GPT-5's 93.2%") that the Chinese writes right
    before a verb of surpassing (GPT-5超越了…), as the winner; a name the English also makes a winner is left."""
    made = []
    for match in _BEATS_RE.finditer(english):
        name = match.group(1)
        if name in made or re.search(re.escape(name) + _EN_BEATING, english):
            continue
        if re.search(re.escape(name) + _ZH_BEATING, chinese):
            made.append(name)
    return made


def comparisons_added(english: str, chinese: str) -> list[str]:
    """The English's names that the Chinese compares with (对比X, 与X相比, 比X) where the English compares
    with nothing of that name: a benchmark the work is measured on made a rival."""
    after_cues = (_name_words(english[cue.end() :])[:COMPARED_WORDS] for cue in _COMPARED_RE.finditer(english))
    compared = {word for words in after_cues for word in words}
    english_words = set(_name_words(english))
    added = []
    for pattern in _ZH_COMPARED_RES:
        for match in pattern.finditer(chinese):
            name = match.group(1)
            first = name.split()[0].casefold()
            if first in english_words and first not in compared and name not in added:
                added.append(name)
    return added


def _name_words(text: str) -> list[str]:
    """`text`'s words as names are written (GPT-4o, Qwen2.5), case aside, a full stop after them left out."""
    return [word.rstrip(".-").casefold() for word in re.findall(r"[\w.\-]+", text)]


# What is better lower (latency, cost, errors) said raised: GlimpRouter's takeaway "improves inference accuracy and
# latency" came back as 提高推理准确性和延迟 ("raises … latency") on the 2026-01-13 listing at fa54def, no figure
# for decreases_lost to read. A gain verb whose object, within 8 characters and no word of decrease between or
# right after, is such a quantity, where the English says none of them goes up.
_ZH_COST_RAISED_RE = re.compile(
    r"(?:提高|提升|增加|增大|加大)[^，。；,;降减少低缩短省]{0,8}?(?:延迟|时延|成本|开销|耗时|能耗|错误率|误差|内存占用|显存占用)"
    r"(?![^，。；,;]{0,2}[降减少低缩短省])"  # 准确率提高和延迟减少: the gain is another's, the cost goes down
)
_EN_COST_RAISED_RE = re.compile(
    r"\b(?:increas\w*|higher|more|rais\w*|grow\w*|longer|add\w*|larger)\b[^.;]{0,40}?"
    r"\b(?:latency|latencies|costs?|overheads?|time|errors?|memory|energy)\b",
    re.IGNORECASE,
)


def cost_raised(english: str, chinese: str) -> str | None:
    """The Chinese words that raise what is better lower (提高…延迟) where the English raises none of it, or None."""
    return said_without(_ZH_COST_RAISED_RE, _EN_COST_RAISED_RE, chinese, english)


def said_without(said: re.Pattern[str], unsaid: re.Pattern[str], chinese: str, english: str) -> str | None:
    """The Chinese words `said` matches where the English has nothing `unsaid` matches, or None: what the
    translation says that its English does not."""
    found = said.search(chinese)
    return found.group(0) if found and not unsaid.search(english) else None


# A benchmark the English measures on ("on AIME25") made the owner of what stands after it in the Chinese (AIME25
# 的独立大型模型, "AIME25's standalone large model"): GlimpRouter's summary, finding and takeaway on the 2026-01-13
# listing at 0c20fad and in the review's recorded answer. Chinese says where it was measured: 在 AIME25 上.
_ON_NAME_RE = re.compile(r"(?<!based )(?<!built )\bon\s+(?:the\s+)?([A-Z][\w.\-]*\w(?:\s\d{4})?)")


def benchmarks_made_owners(english: str, chinese: str) -> list[str]:
    """The names the English says something is measured on that the Chinese writes only as an owner (X 的…)."""
    made = []
    for match in _ON_NAME_RE.finditer(english):
        name = re.escape(match.group(1))
        placed = rf"(?:在|(?<![对关])于|以)\s*[^，。；]{{0,12}}?{name}|{name}\s*(?:上|中|里|基准|数据集|测试)"
        if re.search(rf"{name}\s*的", chinese) and not re.search(placed, chinese):
            made.append(match.group(1))
    return made
