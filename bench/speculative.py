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
    .venv/bin/python bench/speculative.py --smoke  # seconds: its requests, its servers' flags, the simulator

Speculative decoding made decoding slower here (docs/performance.md), so the pipeline's embedded server does not
take its flags: this bench serves the model through its own launcher (`--serve`), the embedded server's flags and
llama-server's speculative ones (`--model-draft`, `--spec-type`, `--draft-max`, `--draft-min`).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from papers_devtools.testing.harness import repo_root
from papers_digest.checker.schema import translation_schema
from papers_digest.core.models import Digest
from papers_digest.engines import embedded_server
from papers_digest.engines.localmodel import OFFLINE_MODELS, fetch_model
from papers_digest.engines.process import free_port, machine_cores
from papers_digest.llm.client import response_format
from papers_digest.llm.prompting import load_prompt, translate_messages
from papers_digest.sources.arxiv import abstract_doc
from papers_digest.sources.hf import parse_items
from papers_digest.ways.steps.outline import outline
from papers_digest.ways.steps.parts import plan_parts
from papers_digest.ways.steps.questions import question, read_step_prompts, step_messages

ROOT = repo_root()
MAIN, DRAFT = OFFLINE_MODELS["qwen2.5-coder-1.5b-instruct"], OFFLINE_MODELS["qwen2.5-coder-0.5b-instruct"]
WAYS = {
    "plain": [],
    "draft model (0.5B)": ["--model-draft", str(ROOT / DRAFT.path)],
    "n-grams": ["--spec-type", "ngram-simple"],
}
RECORDED = ROOT / "tests" / "data" / "llm" / "2504.01014-translation.json"
# llama-server's --spec-type values the launcher takes, as llama.cpp's common_speculative_type names them
SPECULATIVE = {
    "none": "COMMON_SPECULATIVE_TYPE_NONE",
    "draft": "COMMON_SPECULATIVE_TYPE_DRAFT_SIMPLE",
    "ngram-simple": "COMMON_SPECULATIVE_TYPE_NGRAM_SIMPLE",
    "ngram-cache": "COMMON_SPECULATIVE_TYPE_NGRAM_CACHE",
}


def server_parser() -> argparse.ArgumentParser:
    """The embedded server's flags, and llama-server's for speculative decoding: a draft model of the same
    tokenizer, or n-grams of the prompt."""
    flags = embedded_server.parser()
    flags.add_argument("--model-draft", default="")
    flags.add_argument("--spec-type", choices=sorted(SPECULATIVE), default="none")
    flags.add_argument("--draft-max", type=int, default=16)
    flags.add_argument("--draft-min", type=int, default=0)
    return flags


def speculative_params(args: argparse.Namespace, xllamacpp: Any) -> Any:
    """The embedded server's CommonParams for the parsed flags, with speculative decoding as they ask: a draft
    model (on the server's threads) or the prompt's n-grams; without either, none."""
    params = embedded_server.server_params(args, xllamacpp)
    kind = "draft" if args.model_draft and args.spec_type == "none" else args.spec_type
    if kind != "none":
        spec = params.speculative
        spec.types = [getattr(xllamacpp.common_speculative_type, SPECULATIVE[kind])]
        spec.draft.n_max, spec.draft.n_min = args.draft_max, args.draft_min
        if args.model_draft:
            spec.draft.mparams.path = args.model_draft
            spec.draft.cpuparams.n_threads = spec.draft.cpuparams_batch.n_threads = args.threads
    return params


def serve_speculative(argv: list[str]) -> int:
    """`--serve <flags>`: the embedded llama-server with speculative decoding, until SIGTERM."""
    args = server_parser().parse_args(argv)
    import xllamacpp

    return embedded_server.serve(speculative_params(args, xllamacpp), args.model, xllamacpp)


def requests() -> list[dict]:
    """The bodies sent, in order: steps of two abstracts, then one translation."""
    prompts = read_step_prompts(load_prompt(ROOT / "prompts" / "digest_en_steps.md")[0])
    bodies = []
    papers, _ = parse_items(json.loads((ROOT / "sample" / "hf" / "2025-04-03.json").read_text(encoding="utf-8")))
    for doc in [abstract_doc(p, "bench") for p in papers if p.arxiv_id in ("2504.00883", "2504.01014")]:
        for part in plan_parts(outline(doc)):
            sentences = [s.text for s in part.sources]
            asked = question(prompts, part.question, sentences, " ".join(sentences))
            bodies.append({"messages": step_messages(prompts, doc.title, part.key, asked), "max_tokens": 100})
    english = Digest.model_validate(json.loads(RECORDED.read_text(encoding="utf-8"))["english"])
    system, _ = load_prompt(ROOT / "prompts" / "translate_zh.md")
    translation = translate_messages(system, english.model_dump())
    bodies.append(
        {"messages": translation, "max_tokens": 1500, "response_format": response_format(translation_schema(english))}
    )
    return bodies


def server_command(extra: list[str], port: int) -> list[str]:
    """This bench's launcher serving the model on `port`, one slot, with `extra` (a way's speculative flags)."""
    return [sys.executable, __file__, "--serve", "--model", str(ROOT / MAIN.path), "--alias", "m", "--port",
            str(port), "--parallel", "1", "--ctx-size", "8192", "--threads", str(machine_cores()), "--no-webui",
            *extra]  # fmt: skip


def simulator_command(extra: list[str], port: int) -> list[str]:
    """--smoke: the engine simulator in the model's place (speculative flags have nothing to do there)."""
    return [str(Path(sys.executable).parent / "papers"), "dev", "sim", "--port", str(port), "--model", "m"]


def serve(extra: list[str], launcher=server_command) -> tuple[subprocess.Popen, str]:
    port = free_port()
    command = launcher(extra, port)
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


def run(extra: list[str], bodies: list[dict], launcher=server_command) -> dict:
    process, url = serve(extra, launcher)
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
    if sys.argv[1:2] == ["--serve"]:
        sys.exit(serve_speculative(sys.argv[2:]))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="seconds: the requests on the simulator, flags parsed")
    smoke = parser.parse_args().smoke
    bodies = requests()
    for extra in WAYS.values():  # every way's command line is one the launcher takes
        server_parser().parse_args(server_command(extra, 0)[3:])
    if smoke:
        results = {way: run(extra, bodies[-2:], simulator_command) for way, extra in WAYS.items()}
    else:
        for model in (MAIN, DRAFT):
            fetch_model(ROOT / model.path, model=model)
        results = {way: run(extra, bodies) for way, extra in WAYS.items()}
    report(results, 2 if smoke else len(bodies))


def report(results: dict[str, dict], count: int) -> None:
    plain = results["plain"]
    print(f"\n{count} requests ({count - 1} steps of two abstracts, 1 translation), greedy, one at a time, "
          f"{machine_cores()} threads\n")  # fmt: skip
    print("| way | decode tok/s | vs plain | drafts accepted | wall | same answers |\n|---|---:|---:|---:|---:|---|")
    for way, r in results.items():
        share = f"{r['accepted']:,} of {r['drafted']:,}" if r["drafted"] else "—"
        same = sum(a == b for a, b in zip(r["answers"], plain["answers"], strict=True))
        ratio = f"{r['tok_s'] / plain['tok_s']:.2f}×" if plain["tok_s"] else "—"  # the simulator reports no timings
        print(f"| {way} | {r['tok_s']:.1f} | {ratio} | {share} | {r['wall_s']:.0f} s | "
              f"{same} of {count} |")  # fmt: skip


if __name__ == "__main__":
    main()
