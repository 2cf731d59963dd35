"""How the checker reads numbers: the one normalisation, whole-number matching, and what counts in prose.

The snippets are taken from the recorded pages where possible (tests/data/arxiv, sample/arxiv, the sample
day's abstracts): the form LaTeXML and the HF API actually print.
"""

import pytest

from papers_digest.checker.numbers import (
    Number,
    entry_numbers,
    normalise_for_match,
    numbers_in,
    prose_numbers,
    values,
)


def found_in(digest_text: str, paper_text: str) -> bool:
    """Whether every number the digest writes is one the paper prints (Number.matches, as the checker uses it)."""
    written = numbers_in(digest_text)
    printed = numbers_in(paper_text)
    assert written, f"no number in {digest_text!r}"
    return all(any(w.matches(p) for p in printed) for w in written)


# (what the digest writes, what the paper prints): the same number after the one normalisation.
MATCH = [
    # thousands separators (PaperBench and ScholarCopilot abstracts: "8,316 individually gradable tasks")
    ("8316", "In total, PaperBench contains 8,316 individually gradable tasks."),
    ("8,316 tasks", "PaperBench contains 8316 tasks"),
    ("1,000", "On a dataset of 1,000 academic writing samples"),
    ("1000000", "over 1,000,000 tokens"),
    ("4,096", "has a hidden dimension of 4,096 and uses g=4"),  # XQuant §3.3
    ("1000", "1\u202f000 samples"),  # narrow no-break space as a thousands separator
    ("1000", "1\u2009000 samples"),  # thin space
    ("1,000", "1\u00a0000 samples"),  # no-break space
    # a space before % or × goes; full-width forms fold under NFKC
    ("12.5%", "improves by 12.5 % on average"),
    ("12.5 %", "improves by 12.5% on average"),
    ("１２．５％", "12.5%"),
    ("43.3%", "achieves 43.3% accuracy on AIME 2024"),  # R1-Zero abstract
    ("43.3％", "achieves 43.3% accuracy on AIME 2024"),
    # the Unicode minus and other dashes
    ("\u22120.5", "a change of -0.5"),
    ("-0.5", "a change of \u22120.5"),
    ("(1.0, -1)", "(top P, top k) | (1.0, -1)"),  # R1-Zero Table 6
    # LaTeX leftovers in LaTeXML's text read as what they print (XQuant, PaperBench)
    ("7.7×", "while using 7.7\\times less memory"),
    ("7.7x", "while using 7.7\\times less memory"),
    ("2×", "Quantizing X provides a 2\\times memory savings"),
    ("21.0%", "achieves an average replication score of 21.0\\%."),
    # × and x are one unit; k and K are one unit
    ("4.3×", "scales to 4.3x aggregate throughput at 16 concurrent requests"),
    ("28x", "28x speedup on repeated image queries"),
    ("2k", "a test sample with 2K sequence length"),
    ("57k", "ORZ | 57k | Combining AIME, Numina-Math, Tulu3 MATH"),
    ("1.5B", "three scales (1.5B, 3B and 7B)"),
    # a dimension word glued to the number (Apple Silicon tables: "21.7s", "0.5fps", "128GB")
    ("21.7 seconds", "No caching (baseline) | 21.7s | 1.0x"),
    ("0.78 s", "3+ | 21.7s | 0.78s | 28x"),
    ("128 GB", "All experiments run on Apple M4 Max with 128GB unified memory."),
    ("512", "with configurable limits (default 512MB)"),
    ("0.5", "2 @ 0.5fps | 2 | 1.8s"),
    ("1.5", "skipping both the expensive vision encoder (1.5-4s)"),
    # a digest may drop the paper's unit or sign
    ("43.3", "achieves 43.3% accuracy"),
    ("0.5", "a change of -0.5"),
    ("7.8", "Vision embedding caching provides 7.8x speedup"),
    # ranges and pairs
    ("21% to 87%", "we achieve 21% to 87% higher throughput than llama.cpp"),
    ("10-20%", "between 10–20% of the contexts"),
    ("16.2/25", "ScholarCopilot scores 16.2/25 in generation quality"),
    # a number touching Chinese characters is still a whole number
    ("43.3%", "准确率达到43.3%。"),
    ("达到43.3%", "achieves 43.3% accuracy"),
]

# (what the digest writes, what the paper prints): not the same number.
NO_MATCH = [
    # inside an identifier or a longer number
    ("16", "W16A16 quantization"),
    ("0.22", "\\cellcolor gray!200.22"),  # a LaTeXML leftover: the colour's 20 runs into the cell's 0.22
    ("4", "compared with GPT-4"),
    ("2.5", "Qwen2.5-Math-7B"),
    ("100", "on A100 GPUs"),
    ("8", "GSM8K"),
    ("3.3", "Oat-Zero-7B | 43.3 | 62.7"),
    ("43", "Oat-Zero-7B | 43.3 | 62.7"),
    ("100", "1000 academic writing samples"),
    ("10", "sampling budget to 3000 tokens"),
    ("15.8", "a score of 115.8/125"),
    # reformatted: a number is matched as printed
    ("0.433", "achieves 43.3% accuracy"),
    ("1.80", "XQuant-CL-2bit uses 1.8\\times less memory"),
    ("1.8", "a ratio of 1.80"),
    ("57,000", "ORZ | 57k | Combining AIME"),
    ("57000", "ORZ | 57k | Combining AIME"),
    ("43.30", "Oat-Zero-7B | 43.3 | 62.7"),
    ("12.10%", "outperform the base model by 12.1%"),
    # a digest may not add a unit or a sign, nor change one
    ("43.3%", "Oat-Zero-7B | 43.3 | 62.7"),
    ("-0.88", "XQuant achieves 0.88 and 0.67 less perplexity degradation"),
    ("12.5%", "12.5\\times memory compression"),
    ("2.5×", "improves by 2.5%"),
    ("57M", "ORZ | 57k | Combining AIME"),
    ("7B", "a 7% gain"),
]


@pytest.mark.parametrize(("written", "printed"), MATCH)
def test_the_same_number_after_normalisation_matches(written, printed):
    assert found_in(written, printed)


@pytest.mark.parametrize(("written", "printed"), NO_MATCH)
def test_a_different_number_or_one_inside_an_identifier_does_not_match(written, printed):
    assert not found_in(written, printed)


# prose -> the numbers that count in it (Number.counts_in_prose), as the checker prints them
PROSE = [
    # digits with decimals, %, ×, sizes, ranges: figures
    ("we present a minimalist R1-Zero recipe that achieves 43.3% accuracy on AIME 2024 with a 7B base model",
     ["43.3%", "7B"]),
    ("XQuant achieves 0.88 and 0.67 less perplexity degradation compared to KIVI*", ["0.88", "0.67"]),
    ("With just 120 GPU hours, our vsGRPO-2B model can outperform the base model by 12.1% and surpass GPT-4o.",
     ["120", "12.1%"]),
    ("we achieve 21% to 87% higher throughput than llama.cpp", ["21%", "87%"]),
    ("the coefficient of variation is from 0.078 to 0.394", ["0.078", "0.394"]),
    ("Video analysis with up to 64 frames achieves 24.7x cache speedup.", ["64", "24.7x"]),
    ("a 2-3x speedup", ["3x"]),
    ("Quantizing X provides a 2\\times memory savings", ["2×"]),
    ("scores 16.2/25 in generation quality", ["16.2", "25"]),
    ("limit the sampling budget to 2048 tokens", ["2048"]),  # not a year: past 2039
    ("On a dataset of 1,000 academic writing samples", ["1000"]),
    ("reducing latency from 21.7s to under 1s", ["21.7"]),
    ("a sign: the score moves by \u22120.5 points", ["-0.5"]),
    ("Claude 3.5 Sonnet achieves an average replication score of 21.0%", ["3.5", "21.0%"]),
    # not figures: labels, identifiers, years as names, lone digits
    ("As shown in Table 1 and Figure 3, see Section 3.2 and Sec. 4.1", []),
    ("(Sec. 3.1, Sec. 3.2) Dr. GRPO effectively fixes GRPO's bias", []),
    ("see Eq. (12), Appendix B, Algorithm 2 and Table 12", []),
    ("as outlined in Sections 2.1 and 3.4, we can afford it", []),  # XQuant §3.1: a list of labels
    ("exhibit self-reflection patterns (Sec. 2.2 and 2.3)", []),  # R1-Zero §3.4
    ("(see Figures B.2, B.3) and Figures 12, 13 and 14", []),
    ("As in Table 2, 43.3% of the answers", ["43.3%"]),  # a figure after a label is still a figure
    ("surpass GPT-4o and GPT-4 with Qwen2.5-Math-7B on MATH500 and GSM8K", []),
    ("W16A16 and W4A4 quantization on A100 and H100 GPUs", []),
    ("five standard benchmarks: AIME 2024, AMC, MATH500", []),
    ("ImageNet 2012 and COCO 2017", []),
    ("we use 3 templates and 2 base models in 4-bit", []),
    ("on MATH level 3-5 questions", []),
    # Chinese labels and figures
    ("如第3节所示，表2和图4给出了结果。", []),
    ("见表2、3和第3.1节与3.2节。", []),
    ("详见3.2节与公式（2）。", []),
    ("第3.2节报告了1.8倍的内存节省。", ["1.8倍"]),
    ("准确率达到43.3%，比基础模型高12.1%。", ["43.3%", "12.1%"]),
    ("吞吐量提升２１％至８７％。", ["21%", "87%"]),
    ("在16个并发请求下吞吐量扩展到4.3x。", ["16", "4.3x"]),
    # a percentage or a ratio right after a word that ends in a label character is still a figure
    ("以更好的方式12.1%超过基础模型，算法2.5×更快。", ["12.1%", "2.5×"]),
    ("Table 12.1% of", ["12.1%"]),
]  # fmt: skip


@pytest.mark.parametrize(("prose", "figures"), PROSE)
def test_what_counts_as_a_number_in_prose(prose, figures):
    assert [n.text for n in prose_numbers(prose)] == figures


@pytest.mark.parametrize(
    ("text", "normalised"),
    [
        ("1,000,000 and 4,096", "1000000 and 4096"),
        ("12.5 % and 2.5 ×", "12.5% and 2.5×"),
        ("\u22120.5 \u2013 0.7", "-0.5 - 0.7"),
        ("１２．５％", "12.5%"),
        ("1\u202f000 tokens", "1000 tokens"),
        ("7.7\\times less, 21.0\\%", "7.7× less, 21.0%"),
        ("a\n  b\u00a0c", "a b c"),
        ("{4,3,2}-bit", "{4,3,2}-bit"),  # not thousands: groups of three only
    ],
)
def test_the_one_normalisation(text, normalised):
    assert normalise_for_match(text) == normalised


@pytest.mark.parametrize(
    ("entry", "numbers"),
    [
        ("43.3%", ["43.3%"]),
        ("1,000", ["1000"]),
        ("−0.5", ["-0.5"]),
        ("120 GPU hours", ["120"]),
        ("from 40.1% to 43.3%", ["40.1%", "43.3%"]),
        ("21.7s", ["21.7"]),
        ("twelve", []),
        ("GPT-4", []),
        ("W16A16", []),
    ],
)
def test_entry_numbers(entry, numbers):
    assert [n.text for n in entry_numbers(entry)] == numbers


def test_labels_are_read_before_and_after_the_number():
    assert [n.label for n in numbers_in("Table 2 shows 43.3%")] == [True, False]
    assert [n.label for n in numbers_in("第3.2节给出1.8倍")] == [True, False]
    assert [n.label for n in numbers_in("见3.2节")] == [True]


def test_a_display_resolution_is_a_label_and_a_context_length_a_figure():
    # InfGen's "cutting 4K image generation time to under 10 seconds" (the 2025-09-15 listing): 10 is the result
    said = "cutting 4K image generation time to under 10 seconds"
    assert [(n.text, n.label) for n in numbers_in(said)] == [("4K", True), ("10", False)]
    assert [n.label for n in numbers_in("4K分辨率、8K的视频和4K-resolution frames")] == [True, True, True]
    assert [n.label for n in numbers_in("a 4K context, 8K tokens, 57K images and 2K steps")] == [False] * 4


def test_a_version_written_apart_from_its_name_is_found_inside_the_name():
    (llama,) = prose_numbers("Llama 3.1 models")
    assert llama.name == "Llama"
    assert llama.named_at(normalise_for_match("the Llama-3.1-8B model")) is not None
    assert llama.named_at(normalise_for_match("Llama-3.2-3B")) is None
    (qwen,) = prose_numbers("Qwen 2.5 models")
    assert qwen.named_at("Qwen2.5-Math-7B") is not None
    assert Number("16", name="W").named_at("W16A16") is None  # a number inside an identifier stays inside


def test_values_are_multisets_of_signed_values_units_aside():
    assert values(prose_numbers("2.5× and 2.5 倍, −0.5 and 43.3%")) == {"2.5": 2, "-0.5": 1, "43.3": 1}
