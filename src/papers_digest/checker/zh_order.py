"""Chinese word order the program mends: a clause the 1.5B model left where English says it, after the result,
which Chinese says first or as a clause of its own. Docs: docs/translation.md, "What the program mends".

English closes a sentence with how ("… by scaling effective TTC to two million tokens") and against what ("…
compared to a standalone large model on AIME25"); the model kept that order, and a Chinese reader gets a dangling
clause: …超越GPT-5的93.2%，通过将有效的TTC放大到大约200万tokens。 ("…, by scaling …."), …延迟减少了25.9%，相对于单独的
大型模型在AIME25上。 ("…, relative to the standalone model on AIME25."). Moving a clause changes no word of it, so
the program does it rather than asking again.
"""

from __future__ import annotations

import re

# A sentence's clauses before the one that closes it (from the text's start or the last sentence end), and its end.
_HEAD = r"(?P<head>(?:^|(?<=[。！？]))[^。！？]+?)"
_END = r"\s*(?P<end>[。！？]|$)"
# A closing clause of means: 通过 with no verb of its own after its means (通过分析…来推断… says its aim, and is
# good Chinese as it stands), not 通过了 ("passed").
_MEANS_LAST_RE = re.compile(rf"，\s*通过(?!了)(?P<means>[^，。；！？]+?){_END}")
_MEANS_WITH_AIM_RE = re.compile(r"来|以|从而|进而|实现|进行|完成|做到")
# A closing clause of comparison: 相对于 / 相较于 / 相比(于) X, or 与 X 相比, with where it was measured (在Y上)
# after it; the sentence before it, from the last sentence end.
_RIVAL = r"(?:(?:相对于|相较于|相比于?)\s*(?P<rival>[^，。；！？]+?)|与\s*(?P<with>[^，。；！？]+?)\s*相比)"
_COMPARISON_LAST_RE = re.compile(rf"{_HEAD}，\s*{_RIVAL}\s*(?:在\s*(?P<place>[^，。；！？]+?)\s*上)?{_END}")

# A place said as a clause of its own between two others, ，在AIME 2024上，创造…: R1-Zero's summary in every sample
# run to de72281 (the model's …，AIME 2024上，… or …，AIME 2024，…, given its 在 by zh_claims.with_place_marked).
_PLACE_CLAUSE_RE = re.compile(r"，\s*(在[^，。；！？]{1,30}?上)\s*，(?=[^，。；！？]{2})")
_PLACE_LAST_RE = re.compile(rf"{_HEAD}，\s*(?P<place>在[^，。；！？]{{1,30}}?上){_END}")

# A model's origin said in English as an apposition ("vsGRPO-2B, fine-tuned from Qwen2-VL-2B, outperforms …") and
# left as a clause of its own: vsGRPO-2B从Qwen2-VL-2B微调，优于… ("vsGRPO-2B fine-tunes from Qwen2-VL-2B, outperforms
# …") in every sample run to f7dd6af, and vsGRPO-7B 模型通过 Qwen2-VL-7B 训练，… ("trained by way of"). Chinese says it
# before its name: 从Qwen2-VL-2B微调而来的vsGRPO-2B优于….
_EN_ORIGIN_RE = re.compile(r",\s*(?:fine-?tuned|trained|distilled)\s+from\s+[^,]+,", re.IGNORECASE)
_ZH_ORIGIN_CLAUSE_RE = re.compile(
    r"(?P<name>[A-Za-z][\w.\-]*(?:\s*模型)?)\s*(?:从|由|通过)\s*(?P<base>[A-Za-z][\w.\-]*)\s*(?P<verb>微调|训练|蒸馏)(?:而来|得到)?\s*，\s*"
)


def with_origin_before_its_name(chinese: str, english: str) -> str:
    """`chinese` with a model's origin that `english` says as an apposition, left as a clause after the model's name
    (X从Y微调，…), said before the name (从Y微调而来的X…)."""
    if not _EN_ORIGIN_RE.search(english):
        return chinese
    return _ZH_ORIGIN_CLAUSE_RE.sub(lambda m: f"从{m['base']}{m['verb']}而来的{m['name']}", chinese, count=1)


def with_place_joined(chinese: str) -> str:
    """`chinese` with a place said as a clause of its own joined to the clause after it (，在AIME 2024上，创造新的最先进
    水平 → ，在AIME 2024上创造新的最先进水平), or, closing its sentence, said first (…延迟减少了25.9%，在AIME25上。 →
    在AIME25上，…延迟减少了25.9%。)."""
    joined = _PLACE_CLAUSE_RE.sub(lambda m: f"，{m.group(1)}", chinese)
    return _PLACE_LAST_RE.sub(lambda m: f"{m.group('place')}，{m.group('head').strip()}{_end(m)}", joined)


def with_means_said_after(chinese: str) -> str:
    """`chinese` with a closing clause of means said as Chinese says it after its result, 这是通过…实现的 ("this is
    done by …"): PaCoRe's summary on the 2026-01-13 listing at de72281, AnimeGamer's takeaway on the sample day
    (…体验，通过预测下一个游戏状态。)."""

    def said(match: re.Match[str]) -> str:
        means = match.group("means")
        if _MEANS_WITH_AIM_RE.search(means):
            return match.group(0)
        return f"，这是通过{means}实现的{_end(match)}"

    return _MEANS_LAST_RE.sub(said, chinese)


def with_comparison_first(chinese: str) -> str:
    """`chinese` with a sentence's closing comparison said before it, where it was measured first: …延迟减少了25.9%，
    相对于单独的大型模型在AIME25上。 (GlimpRouter's summary on the 2026-01-13 listing, three runs to de72281) becomes
    在AIME25上，与单独的大型模型相比，…延迟减少了25.9%。"""

    def first(match: re.Match[str]) -> str:
        rival = (match.group("rival") or match.group("with")).strip()
        if rival.startswith("之下") or rival.endswith(("而言", "来说")):
            return match.group(0)  # 相比之下 ("in contrast"), 相对于X而言 ("as for X"): no rival
        place = f"在{match.group('place').strip()}上，" if match.group("place") else ""
        head = match.group("head").strip()
        return f"{place}与{rival}相比，{head}{_end(match)}"

    return _COMPARISON_LAST_RE.sub(first, chinese)


def _end(match: re.Match[str]) -> str:
    """The sentence end a match closed on, or a full stop where it closed the text without one."""
    return match.group("end") or "。"
