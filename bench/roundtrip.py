"""#45: the round trip, measured: a unit's Chinese translated back into English by the same model, compared with
the English it translates, on recorded faults and faithful translations alike.

Every case of tests/data/zh/units.json (the faults of the #45 review and faithful translations of the same
English) is translated back, greedy, on a fresh embedded llama-server with the sample's settings, and the back
translation compared with the English for what the word rules cannot see: which names each figure stands with
(in its clause), negations (not, no, without, cannot, fails …), and the direction of comparisons (more, higher,
outperforms … against less, lower, worse …). Printed: per signal, the faults it catches and the faithful
translations it fails; a signal is worth a checker rule only with faults caught and no faithful one failed.
`--smoke` runs the same code on the engine simulator (seconds; a test runs it).

    .venv/bin/python bench/roundtrip.py --threads 1     # a few minutes on 2 busy cores
    .venv/bin/python bench/roundtrip.py --smoke
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
from collections.abc import Callable

import httpx

from papers_devtools.testing.harness import make_params, repo_root
from papers_digest.checker.numbers import prose_numbers
from papers_digest.cli.sample import offline_settings
from papers_digest.engines.localmodel import DEFAULT_MODEL, OFFLINE_MODELS
from papers_digest.engines.process import ManagedEngine
from papers_digest.reading.names import names_in

ROOT = repo_root()
CASES = json.loads((ROOT / "tests" / "data" / "zh" / "units.json").read_text(encoding="utf-8"))["cases"]
BACK = (
    "Translate the user's Chinese text into English, sentence by sentence, as literally as good English allows. "
    "Keep every name, figure and Latin-script term exactly as written. Answer with the English translation only."
)
_NEGATION_RE = re.compile(r"\b(?:not|no|never|without|cannot|can't|fails?|failed|failing|neither|nor|lacks?)\b", re.I)
_UP_RE = re.compile(
    r"\b(?:more|higher|better|faster|larger|outperform\w*|surpass\w*|exceed\w*|beats?|improv\w*)\b", re.I
)
_DOWN_RE = re.compile(r"\b(?:less|fewer|lower|worse|slower|smaller|underperform\w*|degrad\w*|drops?)\b", re.I)
_CLAUSE_RE = re.compile(r"[,;:.!?]\s+|\s+(?:and|but|while|whereas|which)\s+")


def figure_company(text: str) -> set[tuple[str, str]]:
    """(figure, name) pairs that stand in one clause of `text`: which names a figure is said of."""
    pairs = set()
    for clause in _CLAUSE_RE.split(text):
        figures = [n.text for n in prose_numbers(clause)]
        pairs |= {(figure, name) for figure in figures for name in names_in(clause)}
    return pairs


def negations(text: str) -> int:
    return len(_NEGATION_RE.findall(text))


def direction(text: str) -> int:
    """Comparisons upwards minus downwards."""
    return len(_UP_RE.findall(text)) - len(_DOWN_RE.findall(text))


# Each signal: whether the back translation disagrees with the English.
SIGNALS: dict[str, Callable[[str, str], bool]] = {
    "figures with other names": lambda en, back: bool(figure_company(back) - figure_company(en)),
    "negations": lambda en, back: (negations(en) > 0) != (negations(back) > 0),
    "comparison direction": lambda en, back: (direction(en) > 0) != (direction(back) > 0),
}


async def back_translate(url: str, model: str, texts: list[str]) -> list[str]:
    async with httpx.AsyncClient(base_url=url, timeout=3600, trust_env=False) as client:

        async def one(text: str) -> str:
            messages = [{"role": "system", "content": BACK}, {"role": "user", "content": text}]
            body = {"model": model, "temperature": 0, "max_tokens": 200, "messages": messages}
            reply = (await client.post("/v1/chat/completions", json=body)).json()
            return reply["choices"][0]["message"]["content"].strip()

        return list(await asyncio.gather(*(one(t) for t in texts)))


def report(backs: list[str]) -> None:
    faults = [(c, b) for c, b in zip(CASES, backs, strict=True) if not c["faithful"]]
    faithful = [(c, b) for c, b in zip(CASES, backs, strict=True) if c["faithful"]]
    print(f"\n{len(faults)} recorded faults, {len(faithful)} faithful translations, each translated back\n")
    print("| signal | faults caught | faithful failed |\n|---|---:|---:|")
    for name, differs in SIGNALS.items():
        caught = [c["id"] for c, b in faults if differs(c["english"], b)]
        failed = [c["id"] for c, b in faithful if differs(c["english"], b)]
        print(f"| {name} | {len(caught)} of {len(faults)} ({', '.join(caught) or '—'}) | "
              f"{len(failed)} of {len(faithful)} ({', '.join(failed) or '—'}) |")  # fmt: skip
    print("\n| case | faithful | back translation |\n|---|---|---|")
    for case, back in zip(CASES, backs, strict=True):
        print(f"| {case['id']} | {'yes' if case['faithful'] else 'no'} | {' '.join(back.split())} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, help="the engine's threads (on busy cores 1 decodes faster)")
    parser.add_argument("--smoke", action="store_true", help="on the engine simulator")
    args = parser.parse_args()
    texts = [case["chinese"] for case in CASES]
    if args.smoke:
        from papers_devtools.sim.routes import EngineSim
        from papers_devtools.sim.serve import BackgroundServer

        with BackgroundServer(EngineSim(model="sim").app) as server:
            return report(asyncio.run(back_translate(server.url, "sim", texts)))
    llm, engine = offline_settings(ROOT / OFFLINE_MODELS[DEFAULT_MODEL].path)
    if args.threads:
        engine["extra_args"] = ["--threads", str(args.threads)]
    params = make_params(llm=llm, engine=engine)
    with ManagedEngine.from_params(params, log_dir=ROOT / "logs" / "bench") as served:
        report(asyncio.run(back_translate(served.url, params.llm.model, texts)))


if __name__ == "__main__":
    main()
