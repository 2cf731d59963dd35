"""What a Chinese translation claims that its English does not: a size ("显著"), the authors' voice ("我们"), a
level turned over (低分辨率 for "high-resolution"), a means (通过); and what the program mends in it besides
("compared to" left in English, a place without its 在). Docs: docs/translation.md, "What the program mends";
docs/checker.md, rule `zh_direction`.

A 1.5B model adds 显著 ("significantly") to a decrease or a gain as a habit: on the 2025-09-15 listing InfGen's
"with reduced 4K generation time" came back as 4K 生成时间显著减少. Taking the adverb out changes no fact and
leaves good Chinese (显著减少 → 减少, 大大提高了 → 提高了), so the program takes it out, as it takes "significantly"
out of an English field whose sentence claims no size (scope.without_added_intensifiers). The same for 我们
("we"): a digest speaks of the paper, so where the English says no "we" or "our" the Chinese says 作者 (the
authors), not 我们, as 2504.00883's method did in a sample run at 9fdd730. A level said the other way
(低分辨率 for InfGen's "high-resolution", a run on the 2025-09-15 listing at 45e7f15) turns the meaning over
and cannot be mended by the program: it is a fault the unit is asked again for. It is read only of nouns a
level is said of, whose Chinese is known (_LEVELLED): a bare 低 also says "reduced" (低延迟, "reduced latency").
"""

from __future__ import annotations

import re

from papers_digest.checker.direction import said_without
from papers_digest.checker.scope import claims_size
from papers_digest.checker.zh_order import (
    with_comparison_first,
    with_means_said_after,
    with_origin_before_its_name,
    with_place_joined,
)
from papers_digest.reading.glossary import whole_term
from papers_digest.reading.names import acronym_definitions

# Chinese adverbs and adjectives of size, with the 地/的 that makes them one; 大量 ("a large number of",
# "extensive experiments" → 大量实验) and 非常 ("crucial" → 非常重要) are left, since the English says them.
_ZH_SIZE_RE = re.compile(r"(?:显著|大大|大幅度?|极大|明显|巨大|远远|极为|极其)(?:地|的)?")
# English words of size that scope's claim of size leaves out, since a field may not add them but may say them:
# "far below" → 远远低于, "clearly" → 明显, "crucial" → 至关重要.
_EN_SIZE_RE = re.compile(
    r"\b(?:far|much|clear(?:ly)?|obvious(?:ly)?|sharp(?:ly)?|highly|very|extreme(?:ly)?|tremendous(?:ly)?|"
    r"immense(?:ly)?|steep(?:ly)?|crucial|critical|essential|vital)\b",
    re.IGNORECASE,
)
_ZH_WE_RE = re.compile(r"我们")
_EN_WE_RE = re.compile(r"\b(?:we|our|ours|us)\b", re.IGNORECASE)
_AUTHORS = "作者"
# Nouns a level is said of ("high-resolution", "low latency") and their Chinese, which 高 or 低 comes before.
_LEVELLED = {
    "resolution": "分辨率",
    "quality": "质量",
    "fidelity": "保真",
    "precision": "精度",
    "accuracy": "准确|精度",
    "latency": "延迟|时延",
    "cost": "成本|开销",
    "dimensional": "维",
    "frequency": "频",
}
_LEVEL_ZH = {"high": "高", "low": "低"}


def without_added_size(chinese: str, english: str) -> str:
    """`chinese` with its adverbs and adjectives of size (显著, 大大, 明显的) taken out where `english` claims no
    size."""
    if claims_size(english) or _EN_SIZE_RE.search(english):
        return chinese
    return _ZH_SIZE_RE.sub("", chinese)


def in_the_papers_voice(chinese: str, english: str) -> str:
    """`chinese` with 我们 ("we") said as 作者 ("the authors") where `english` says no "we" or "our"."""
    if _EN_WE_RE.search(english):
        return chinese
    return _ZH_WE_RE.sub(_AUTHORS, chinese)


def level_turned(chinese: str, english: str) -> str | None:
    """The Chinese words that say the opposite level of what `english` says ("high-resolution" said 低分辨率), or
    None: a level the English says both ways ("high- and low-resolution") is left."""
    for noun, said in _LEVELLED.items():
        levels = {level for level in _LEVEL_ZH if re.search(rf"\b{level}(?:er|est)?[\s-]+{noun}", english, re.I)}
        if len(levels) != 1:
            continue
        opposite = _LEVEL_ZH["low" if levels == {"high"} else "high"]
        if found := re.search(rf"{opposite}(?:的)?(?:{said})", chinese):
            return found.group(0)
    return None


# Nouns whose Chinese is one word, said nowhere else, so that each time it is said without its level is counted:
# InfGen's summary on the 2025-09-15 listing at 5fe895a said "achieves high-resolution image synthesis" as
# 提高了分辨率图像合成的效率 ("improved the efficiency of resolution image synthesis"), its level gone.
_LEVELLED_ALONE = {"resolution": "分辨率", "fidelity": "保真"}


def level_dropped(chinese: str, english: str) -> str | None:
    """The Chinese noun said without the level `english` gives it ("high-resolution" said 分辨率, with no 高), more
    often than the English says the noun without a level; None where it keeps it."""
    for noun, said in _LEVELLED_ALONE.items():
        nouns = len(re.findall(rf"\b{noun}\b", english, re.I))
        levelled = {
            level: len(re.findall(rf"\b{level}(?:er|est)?[\s-]+{noun}\b", english, re.I)) for level in _LEVEL_ZH
        }
        if sorted(count > 0 for count in levelled.values()) != [False, True]:
            continue
        count = max(levelled.values())
        bare = len(re.findall(rf"(?<![高低]){said}", chinese))  # the other level is level_turned's
        if bare > nouns - count:
            return said
    return None


# A means ("through", "by") the Chinese adds: on the 2026-01-13 listing at 17c45b1 GlimpRouter's "achieves a 10.7%
# accuracy improvement … compared to a standalone large model" came back as GlimpRouter通过10.7%的准确率提高…进行了比较
# ("by way of a 10.7% gain … made a comparison"), and PaCoRe's "tackles the challenge of …" as PaCoRe通过解决…
# ("by tackling …, it surpasses"). Of the 162 units of tests/data and the recorded days' runs, 28 say 通过; these
# 4 are the ones whose English names no means.
_ZH_MEANS_RE = re.compile(r"通过|借助|凭借")
# "by" before a figure is an amount ("reduces latency by 25.9%"), not a means: GlimpRouter's summary on the 2026-01-13
# listing at ec47d1d came back as …GlimpRouter通过10.7%的准确率改进和减少推理延迟25.9%。, a sentence with no verb.
_BY_AN_AMOUNT = r"by(?!\s+(?:about|around|roughly|nearly|almost|over|up\s+to|only|just|a\s+factor\s+of)?\s*[~≈]?\d)"
# "with" before a quantity changed is a state, not a means: InfGen's "… with reduced 4K generation time" (the
# 2025-09-15 listing at 47e7336) came back as InfGen通过减少4K生成时间实现了… ("by reducing …") and passed. Only the
# decreases `with_state_said_after` says as Chinese does: a rule the program cannot mend would fail the paper.
_WITH_CHANGED = r"with\s+(?:reduced|lower|shorter|fewer|less)\b"
_WITH_A_STATE = rf"(?!{_WITH_CHANGED})with"
_EN_MEANS_RE = re.compile(
    rf"\b(?:{_BY_AN_AMOUNT}|through|via|using|uses?|used|{_WITH_A_STATE}|from|thanks|leverag\w*|employ\w*|utiliz\w*|based|means|"
    r"appl(?:y|ies|ied|ying)|rel(?:y|ies|ying)|exploit\w*|combin\w*|incorporat\w*|adopt\w*|introduc\w*)\b",
    re.IGNORECASE,
)


def means_added(chinese: str, english: str) -> str | None:
    """The Chinese word of means (通过, "by way of") where `english` names no means, or None."""
    return said_without(_ZH_MEANS_RE, _EN_MEANS_RE, chinese, english)


# The state said as a means: InfGen's "achieves high-resolution image synthesis with reduced 4K generation time"
# came back as X1通过减少4K生成时间实现了… ("by reducing …") in 8 rounds of 8 on the 2025-09-15 listing at 8f72912,
# rule zh_added rejecting each. The program says the state after the result, as the English does:
# …实现了高分辨率图像合成，且4K生成时间减少.
_EN_WITH_CHANGED_RE = re.compile(rf"\b{_WITH_CHANGED}", re.IGNORECASE)
_ZH_BY_CHANGING_RE = re.compile(
    r"通过\s*(?P<change>减少|降低|缩短)\s*(?P<what>[^，。；！？]{1,20}?)\s*来?\s*"
    r"(?P<result>(?:实现|达到|取得)了?[^，。；！？]+)"
)


def with_state_said_after(chinese: str, english: str) -> str:
    """`chinese` with a quantity changed said as the means of its result (通过减少Y实现了Z) said as the state it is
    (实现了Z，且Y减少), where `english` says it "with reduced Y" and names no means."""
    if not _EN_WITH_CHANGED_RE.search(english) or means_added(chinese, english) is None:
        return chinese
    return _ZH_BY_CHANGING_RE.sub(lambda m: f"{m['result']}，且{m['what']}{m['change']}", chinese, count=1)


# "compared to" left in English between Chinese words: R1-Zero's "… by about 60% compared to traditional 4-shot
# prompting" came back as …约60% compared to传统的4-shot提示 in 7 of 8 rounds of the sample run at 2162664, told each
# time to translate it. The program says it as Chinese does after a clause (，相比…). Before a name and then Chinese
# words too: GlimpRouter's summary on the 2026-01-13 listing at d90ce44 left
# …的延迟， compared to AIME25 上的独立大模型。
_COMPARED_TO_RE = re.compile(
    r"\s*([，,]?)\s*compared\s+(?:to|with)\s*(?=[\u4e00-\u9fff]|[A-Za-z0-9][\w.\- ]{0,30}?[\u4e00-\u9fff])",
    re.IGNORECASE,
)


# The same said word for word in Chinese, 比较到 ("compared to"), which is no Chinese: GlimpRouter's summary on the
# 2026-01-13 listing at eeae767 ended …延迟减少了 25.9% 比较到 AIME25 上的独立大型模型。 Chinese says 与…相比.
# So is 比较 alone right after a figure (…减少了推理延迟 25.9% 比较独立大型模型在 AIME25 上。, at 47e7336): after a
# figure it cannot be the adverb "rather" (比较好).
_COMPARED_TO_ZH_RE = re.compile(r"(?:\s*[，,]?\s*比较到|(?<=[\d%])\s*比较(?!到))\s*([^，。；,;]+?)\s*(?=[，。；,;]|$)")


def with_comparison_in_chinese(chinese: str) -> str:
    """`chinese` with an English "compared to" before Chinese words said 相比, after a comma, and 比较到 Y or a figure's
    比较 Y (calques) said ，与Y相比."""
    said = _COMPARED_TO_RE.sub("，相比", chinese)
    return _COMPARED_TO_ZH_RE.sub(lambda m: f"，与{m.group(1)}相比", said)


# A benchmark said as a place with no 在 before it, a clause of its own: R1-Zero's summary in the sample run at
# c3dbd96 came back as …，使用7B基础模型，AIME 2024上，创造新的最先进水平 ("…, AIME 2024 on, …"), as in the session
# before. Chinese says where with 在 (在AIME 2024上); the program writes it.
_PLACE_WITHOUT_AT_RE = re.compile(r"(^|[，；。])(\s*)(?=[A-Za-z][\w .\-]{0,30}?\s*上[，。；])")
# The same benchmark as a bare clause, with no word of place at all: …，使用了7B基础模型，AIME 2024，创造新的最先进水平
# (the sample run at 78e622b), where the English says "on AIME 2024". Only a clause that is a name alone, and only
# where the English says it "on" or "across": a name listed in the Chinese stays a name.
_BARE_NAME_CLAUSE_RE = re.compile(r"(?<=[，；])\s*([A-Za-z][\w.\-]*(?: [\w.\-]+){0,3})\s*(?=[，；。])")


def with_place_marked(chinese: str, english: str = "") -> str:
    """`chinese` with 在 before a name said as a place (AIME 2024上) that opens a clause without it, and 在…上
    around a name said as a clause of its own that `english` says a result is "on"."""
    said = _PLACE_WITHOUT_AT_RE.sub(lambda m: f"{m.group(1)}{m.group(2)}在", chinese)

    def placed(match: re.Match[str]) -> str:
        name = match.group(1)
        on = re.search(rf"\b(?:on|across)\s+(?:the\s+)?{re.escape(name)}(?![\w-])", english)
        return f"在{name}上" if on else match.group(0)

    return _BARE_NAME_CLAUSE_RE.sub(placed, said)


# A problem said as its bare topic, "The paper addresses …" left out: HANRAG's problem on the 2025-09-15 listing at
# 0c20fad came back as 多跳问答中的噪声累积问题。 ("the problem of noise accumulation in multi-hop QA."), a heading,
# and R1-Zero's as 强化学习（RL）在大规模场景下如何增强…, a question with no one asking it. Where the English opens
# with the paper and a verb of study and the Chinese says neither, the program writes the opening.
_EN_THE_PAPER = r"^\s*(?:The|This)\s+(?:paper|study|research|work)\s+"  # an English that opens with the paper
_ZH_THE_PAPERS = "论文|研究|本文|该文|文章|作者|工作"  # the Chinese words that name the paper or its authors
_EN_STUDIES_RE = re.compile(
    rf"{_EN_THE_PAPER}(?:aims\s+to\s+|seeks\s+to\s+|sets\s+out\s+to\s+)?"
    r"(?:address|investigat|explor|tackl|examin|stud|focus)",
    re.IGNORECASE,
)
_ZH_STUDIES_RE = re.compile(rf"{_ZH_THE_PAPERS}|探讨|解决|针对|关注|处理|应对|讨论|探索|考察|分析")
_ZH_STUDIES = "该论文探讨了"
# The verb of study said with no one doing it: 2509.09677's problem on the 2025-09-15 listing at 57fb7fa came back
# as 研究大语言模型的长期执行。 ("studies the long-term execution of LLMs."), 2405.15071's on the 2024-05-27 listing
# at 53b670c as 研究如何让transformers…: the program writes the subject.
# 研究 before a verb or a noun of its own is the noun "research", the subject: GlimpRouter's 研究探讨了… and VideoDR's
# 研究论文关注… on the 2026-01-13 listing at bd94e11 became 该论文研究探讨了… and 该论文研究论文关注….
_ZH_SUBJECTLESS_RE = re.compile(
    r"^\s*(?:研究(?!论文|工作|人员|者|表明|发现|显示|指出|探讨|探索|调查|考察|分析|关注|提出|旨在|聚焦)|探讨|探索|考察|分析|"
    r"解决|关注|针对|处理|应对|讨论)"
)
_ZH_THE_PAPER = "该论文"


# A method said as its bare topic, "The paper introduces …" left out: 2509.09677's method on the 2025-09-15 listing
# at 6f052a8 came back as 大语言模型评估长期执行的技术：… ("LLMs evaluate … technique: …"), 2503.05236's on the
# 2025-03-10 listing at 5bea20d as 统一奖励模型用于… Not where the Chinese says what the thing is (X是一种…).
_EN_INTRODUCES_RE = re.compile(rf"{_EN_THE_PAPER}(?:introduc|propos|present|develop)", re.IGNORECASE)
_ZH_INTRODUCES_RE = re.compile(rf"{_ZH_THE_PAPERS}|提出|介绍|引入|推出|开发|设计|构建|提供")
_ZH_SAYS_WHAT_RE = re.compile(r"^[^，。；：]*[是为]")
_ZH_INTRODUCES = "该论文提出了"


def with_the_paper_said(chinese: str, english: str) -> str:
    """`chinese` with 该论文探讨了 ("the paper examines") before it where `english` opens with the paper studying
    something and `chinese` says no one does, and 该论文 before a verb of study it opens on with no subject; with
    该论文提出了 ("the paper proposes") where `english` opens with the paper introducing something and `chinese`
    names neither the paper nor the introducing."""
    if _EN_INTRODUCES_RE.match(english) and not _ZH_INTRODUCES_RE.search(chinese):
        return chinese if _ZH_SAYS_WHAT_RE.match(chinese) else _ZH_INTRODUCES + chinese.lstrip()
    if not _EN_STUDIES_RE.match(english):
        return chinese
    if not _ZH_STUDIES_RE.search(chinese):
        return _ZH_STUDIES + chinese.lstrip()
    return _ZH_THE_PAPER + chinese.lstrip() if _ZH_SUBJECTLESS_RE.match(chinese) else chinese


# "paper" said as the material: SoT's takeaway on the 2025-03-10 listing at 57fb7fa came back as
# Sketch-of-Thought 纸展示了… ("the Sketch-of-Thought sheet of paper shows"). A digest's "paper" is a 论文.
_EN_PAPER_RE = re.compile(r"\bpapers?\b", re.IGNORECASE)
_ZH_SHEET_RE = re.compile(r"(?<![草白废报剪折试宣])纸(?![张质币板盒巾箱袋浆])")


def with_paper_said_as_article(chinese: str, english: str) -> str:
    """`chinese` with 纸 (paper, the material) said 论文 where `english` speaks of a paper."""
    return _ZH_SHEET_RE.sub("论文", chinese) if _EN_PAPER_RE.search(english) else chinese


# An English possessive left before Chinese: R1-Searcher's method on the 2025-03-10 listing at 57fb7fa wrote
# LLMs’的搜索能力. Chinese says it with 的 alone.
_POSSESSIVE_LEFT_RE = re.compile(r"(?<=[A-Za-z0-9])(?:['’]s|(?<=s)['’])\s*(的?)(?=\s*[\u4e00-\u9fff])")


def without_english_possessive(chinese: str) -> str:
    """`chinese` with an English 's or ’ before Chinese words said 的 ("LLMs’的" -> "LLMs的")."""
    return _POSSESSIVE_LEFT_RE.sub("的", chinese)


# "competitive" said as the noun: MergeVQ's summary in the sample run at 256f0d6 came back as 在ImageNet上取得了
# 竞争力的表现 ("achieved competitiveness's performance"); after a verb of achieving it is 有竞争力的.
_COMPETITIVE_AS_NOUN_RE = re.compile(r"(取得|获得|实现|达到|展现出?|展示出?|表现出)(了?)(?=竞争力的)")


# "achieves" said as "proposes": GlimpRouter's summary on the 2026-01-13 listing at bd94e11, "GlimpRouter achieves a
# 10.7% accuracy improvement …", came back as GlimpRouter 提出了 10.7% 的准确率提升 ("proposed an improvement").
_EN_ACHIEVES_RE = re.compile(r"\bachiev(?:e|es|ed|ing)\b", re.IGNORECASE)
_EN_PROPOSES_RE = re.compile(r"\b(?:propos|introduc|present|suggest|put(?:s|ting)? forward)\w*", re.IGNORECASE)


def with_achieving_said(chinese: str, english: str) -> str:
    """`chinese` with 提出(了) said 实现(了) where `english` says "achieves" and proposes nothing."""
    if not _EN_ACHIEVES_RE.search(english) or _EN_PROPOSES_RE.search(english):
        return chinese
    return chinese.replace("提出了", "实现了").replace("提出", "实现")


def with_competitive_said(chinese: str) -> str:
    """`chinese` with 竞争力的 after a verb of achieving said 有竞争力的 (取得了竞争力的表现: 取得了有竞争力的表现)."""
    return _COMPETITIVE_AS_NOUN_RE.sub(lambda m: f"{m[1]}{m[2]}有", chinese)


# A means with no main verb after it: SoT's summary on the 2025-03-10 listing at 57fb7fa, "SoT achieves token
# reductions of 76% with negligible accuracy impact …", came back as SoT通过减少76%的token，同时对…几乎没有影响。
# ("SoT, by reducing tokens by 76%, while …"), a sentence with no verb. Where the English says no "by …ing", the
# change is the verb.
_ZH_MEANS_THEN_WHILE_RE = re.compile(
    r"^(?P<subject>[^，。；通]{1,40}?)通过(?P<verb>减少|降低|缩短|提高|提升|增加)(?P<what>[^，。；]{1,40})，\s*同时"
)
_EN_BY_DOING_RE = re.compile(r"\b(?:by|through|via)\s+[a-z]+ing\b", re.IGNORECASE)


def with_change_as_verb(chinese: str, english: str) -> str:
    """`chinese` with a change said as a means before ，同时 (X通过减少Y，同时Z) said as its verb (X减少了Y，同时Z),
    where `english` says no means."""
    if _EN_BY_DOING_RE.search(english):
        return chinese
    return _ZH_MEANS_THEN_WHILE_RE.sub(lambda m: f"{m['subject']}{m['verb']}了{m['what']}，同时", chinese, count=1)


# A question where the English states: Aya 23's summary on the 2024-05-27 listing at 53b670c, "The paper aims to
# explore the impact of allocating more capacity to fewer languages …", came back as 预训练模型中分配更多资源给较少的
# 语言有什么影响？ ("what is the impact …?"): the paper's aim said as the reader's question.
_ZH_QUESTION_RE = re.compile(r"[？?]|吗[。]?$")


def question_added(chinese: str, english: str) -> str | None:
    """The question mark the Chinese writes (or the 吗 it closes on) where `english` asks nothing, or None."""
    if "?" in english:
        return None
    found = _ZH_QUESTION_RE.search(chinese)
    return found.group(0) if found else None


# A word said of itself, 影响的影响 ("the impact of the impact"): Aya 23's problem on the 2024-05-27 listing at
# 5bea20d came back as …探索了增加预训练中语言数量的能力对影响的影响, which says nothing. Only closing a phrase:
# 语言模型的模型参数 ("the language model's model parameters") is no such thing.
_ZH_OF_ITSELF_RE = re.compile(r"([\u4e00-\u9fff]{2,4})的\1(?![\u4e00-\u9fff])")


def said_of_itself(chinese: str) -> str | None:
    """A Chinese word said of itself (影响的影响), or None."""
    found = _ZH_OF_ITSELF_RE.search(chinese)
    return found.group(0) if found else None


def mended(chinese: str, english: str) -> str:
    """A unit's Chinese with what the program mends mended: "compared to" said 相比, a size and 我们 the English does
    not say taken out, 在 before a place that lacks it, the paper's opening where it was left out, an acronym in
    brackets after the words it stands for, a state said as a means said after its result, a closing comparison
    said first, a closing means as 这是通过…实现的, a place said as a clause of its own joined to the next and a
    model's origin said before its name (zh_order.py); a change said as a means before 同时 said as its verb, 纸 as
    论文, an English possessive as 的, 竞争力的 after a verb of achieving as 有竞争力的, 提出 for "achieves" as 实现."""
    said = with_state_said_after(with_comparison_in_chinese(chinese), english)
    said = with_place_marked(in_the_papers_voice(without_added_size(said, english), english), english)
    said = with_place_joined(with_means_said_after(with_comparison_first(said)))
    said = with_origin_before_its_name(with_change_as_verb(said, english), english)
    said = with_competitive_said(without_english_possessive(with_paper_said_as_article(said, english)))
    said = with_achieving_said(said, english)
    return with_acronym_after_its_words(with_the_paper_said(said, english), english)


def with_acronym_after_its_words(chinese: str, english: str) -> str:
    """`chinese` with an acronym in brackets moved to right after the glossary's rendering of the words it stands
    for, where the English defines it ("reinforcement learning (RL)") and the Chinese put it elsewhere: R1-Zero's
    method came back as …对强化学习性能的影响（RL） ("the effect (RL)") in two sample runs this session."""
    for acronym, words in acronym_definitions(english).items():
        term = whole_term(words)
        bracketed = re.search(rf"[（(]\s*{re.escape(acronym)}\s*[）)]", chinese)
        if term is None or term.keep or bracketed is None:
            continue
        rendered = next((r for r in term.zh if r in chinese), None)
        if rendered is None or re.search(rf"{re.escape(rendered)}\s*[（(]\s*{re.escape(acronym)}", chinese):
            continue
        without = chinese[: bracketed.start()] + chinese[bracketed.end() :]
        at = without.find(rendered) + len(rendered)
        chinese = f"{without[:at]}（{acronym}）{without[at:]}"
    return chinese
