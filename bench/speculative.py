"""#38: speculative decoding for the default model on 2 cores, side by side in one run.

The embedded llama-server serves the 1.5B model three ways, one after the other, each fresh: plain; with the
0.5B model as its draft model (same tokenizer); with n-grams of the prompt as the draft (a translation
copies names and figures). Each serves the same requests, greedy, one at a time: the steps of two of the
sample day's abstracts (short answers) and the Chinese translation of a recorded English digest (a long
one, held to its schema). Printed per way: decode tokens/s (the engine's own timings), the draft tokens
accepted of those proposed, the wall time, and how many answers are the plain server's (in exact arithmetic
greedy speculative decoding changes only the speed; verifying drafts in a batch changes the last bits of the
logits, and greedy decoding can follow them).

    .venv/bin/python bench/speculative.py          # about 10 minutes on 2 CPU cores
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import httpx

from papers_devtools.sim.serve import free_port
from papers_devtools.testing.harness import repo_root
from papers_digest.checker.candidates import evidence_candidates
from papers_digest.checker.schema import translation_schema
from papers_digest.core.models import Digest
from papers_digest.engines.localmodel import OFFLINE_MODELS, fetch_model
from papers_digest.engines.process import machine_cores
from papers_digest.llm.client import response_format
from papers_digest.llm.drafting import draft_message
from papers_digest.llm.prompting import load_prompt, translate_messages
from papers_digest.llm.steps import QUESTIONS, read_step_prompts, step_message
from papers_digest.sources.arxiv import abstract_doc
from papers_digest.sources.hf import parse_items

ROOT = repo_root()
MAIN, DRAFT = OFFLINE_MODELS["qwen2.5-coder-1.5b-instruct"], OFFLINE_MODELS["qwen2.5-coder-0.5b-instruct"]
WAYS = {
    "plain": [],
    "draft model (0.5B)": ["--model-draft", str(ROOT / DRAFT.path)],
    "n-grams": ["--spec-type", "ngram-simple"],
}
RECORDED = ROOT / "tests" / "data" / "llm" / "2504.01014-translation.json"


def requests() -> list[dict]:
    """The bodies sent, in order: steps of two abstracts, then one translation."""
    prompts = read_step_prompts(load_prompt(ROOT / "prompts" / "digest_en_steps.md")[0])
    bodies = []
    papers, _ = parse_items(json.loads((ROOT / "sample" / "hf" / "2025-04-03.json").read_text(encoding="utf-8")))
    for doc in [abstract_doc(p, "bench") for p in papers if p.arxiv_id in ("2504.00883", "2504.01014")]:
        paper = draft_message(doc, evidence_candidates(doc))
        for key in [q for q in QUESTIONS if q not in ("PICK", "FINDING")]:
            asked = prompts.sections[key].replace("{findings}", "")
            user = step_message(paper, key, asked)
            messages = [{"role": "system", "content": prompts.system}, {"role": "user", "content": user}]
            bodies.append({"messages": messages, "max_tokens": 100})
    english = Digest.model_validate(json.loads(RECORDED.read_text(encoding="utf-8"))["english"])
    system, _ = load_prompt(ROOT / "prompts" / "translate_zh.md")
    translation = translate_messages(system, english.model_dump())
    bodies.append(
        {"messages": translation, "max_tokens": 1500, "response_format": response_format(translation_schema(english))}
    )
    return bodies


def serve(extra: list[str]) -> tuple[subprocess.Popen, str]:
    port = free_port()
    command = [sys.executable, "-m", "papers_digest.engines.embedded_server", "--model", str(ROOT / MAIN.path),
               "--alias", "m", "--port", str(port), "--parallel", "1", "--ctx-size", "8192",
               "--threads", str(machine_cores()), "--no-webui", *extra]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=os.environ.copy())
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            if httpx.get(f"{url}/health", timeout=2, trust_env=False).status_code == 200:
                return process, url
        except httpx.HTTPError:
            pass
        time.sleep(1)
    process.kill()
    raise SystemExit(f"the server did not start: {' '.join(command)}")


def run(extra: list[str], bodies: list[dict]) -> dict:
    process, url = serve(extra)
    answers, tokens, decode_ms, drafted, accepted = [], 0, 0.0, 0, 0
    started = time.monotonic()
    try:
        with httpx.Client(base_url=url, timeout=1800, trust_env=False) as client:
            for body in bodies:
                reply = client.post("/v1/chat/completions", json={"model": "m", "temperature": 0, **body}).json()
                answers.append(reply["choices"][0]["message"]["content"])
                timings = reply.get("timings", {})
                tokens += timings.get("predicted_n", 0)
                decode_ms += timings.get("predicted_ms", 0.0)
                drafted += timings.get("draft_n", 0)
                accepted += timings.get("draft_n_accepted", 0)
    finally:
        process.terminate()
        process.wait(30)
    return {"answers": answers, "tokens": tokens, "tok_s": tokens / (decode_ms / 1000) if decode_ms else 0.0,
            "drafted": drafted, "accepted": accepted, "wall_s": time.monotonic() - started}  # fmt: skip


def main() -> None:
    for model in (MAIN, DRAFT):
        fetch_model(ROOT / model.path, model=model)
    bodies = requests()
    results = {way: run(extra, bodies) for way, extra in WAYS.items()}
    plain = results["plain"]
    print(f"\n{len(bodies)} requests ({len(bodies) - 1} steps of two abstracts, 1 translation), greedy, one at a time, "
          f"{machine_cores()} threads\n")  # fmt: skip
    print("| way | decode tok/s | vs plain | drafts accepted | wall | same answers |\n|---|---:|---:|---:|---:|---|")
    for way, r in results.items():
        share = f"{r['accepted']:,} of {r['drafted']:,}" if r["drafted"] else "—"
        same = sum(a == b for a, b in zip(r["answers"], plain["answers"], strict=True))
        print(f"| {way} | {r['tok_s']:.1f} | {r['tok_s'] / plain['tok_s']:.2f}× | {share} | {r['wall_s']:.0f} s | "
              f"{same} of {len(bodies)} |")  # fmt: skip


if __name__ == "__main__":
    main()
