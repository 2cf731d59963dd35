"""A way of asking for the English digest is one entry of one registry (#46 item 1): params, the stage's
arguments, dvc.yaml's prompt dependency, the benchmark and the docs all follow it, and a way missing from any
of them fails here."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import SAMPLE_DATE, make_params

from papers_digest.core.errors import ConfigError
from papers_digest.pipeline.digesting import check_way_prompt, digest_planner
from papers_digest.pipeline.generating import run_generation_stage
from papers_digest.ways.registry import WAYS, way_named

ROOT = Path(__file__).resolve().parents[1]


def test_each_way_s_prompt_file_exists_and_reads_as_the_way_needs():
    for way in WAYS.values():
        text = (ROOT / way.prompt).read_text(encoding="utf-8")
        way.check_prompt(text, way.prompt)  # raises on a prompt the way cannot ask with


def test_dvc_yaml_makes_the_digest_depend_on_the_chosen_way_s_prompt_alone():
    stage = yaml.safe_load((ROOT / "dvc.yaml").read_text(encoding="utf-8"))["stages"]["digest_en"]
    prompts = [d for d in stage["deps"] if d.startswith("prompts/")]
    assert (prompts, "--prompt prompts/digest_en_${llm.asking}.md" in stage["cmd"]) == (
        ["prompts/digest_en_${llm.asking}.md"],
        True,
    )


def test_the_prompts_folder_holds_a_digest_prompt_for_each_way_and_no_other():
    held = {p.name for p in (ROOT / "prompts").glob("digest_en_*.md")}
    assert held == {Path(way.prompt).name for way in WAYS.values()}


def test_a_way_that_is_no_more_fails_in_one_line_naming_the_ways():
    with pytest.raises(ConfigError) as raised:
        way_named("draft", "params.yaml")
    assert str(raised.value) == f"params.yaml: llm.asking must be one of {', '.join(WAYS)}, got 'draft'"


def test_params_default_is_a_way_of_the_registry():
    assert make_params().llm.asking in WAYS


def test_the_stage_s_help_lists_every_way_s_prompt():
    shown = subprocess.run(
        [sys.executable, "stages/digest_en.py", "--help"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert all(f"{way.prompt} ({name})" in " ".join(shown.split()) for name, way in WAYS.items())


def test_the_stage_given_another_way_s_prompt_stops_in_one_line(tmp_path):
    params = make_params(llm={"asking": "steps"})
    text = (ROOT / "prompts/digest_en_json.md").read_text(encoding="utf-8")
    with pytest.raises(ConfigError, match=r"llm.asking: steps asks with prompts/digest_en_steps.md, but the stage"):
        check_way_prompt(params, "prompts/digest_en_json.md", text)


def test_a_stage_with_a_broken_steps_prompt_stops_with_one_line_naming_what_is_missing(tmp_path):
    broken = tmp_path / "prompts" / "digest_en_steps.md"
    broken.parent.mkdir()
    broken.write_text("You rewrite papers.\n\n## PROBLEM\nWhat problem?\n", encoding="utf-8")
    params = make_params(llm={"asking": "steps", "model": "m", "base_url": "http://127.0.0.1:9/v1"})
    (tmp_path / "params.yaml").write_text(json.dumps(params.model_dump(mode="json")), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"digest_en_steps\.md: missing ## METHOD"):
        run_generation_stage(
            "digest_en",
            date=SAMPLE_DATE,
            params_path=str(tmp_path / "params.yaml"),
            prompt_path=str(broken),
            out=str(tmp_path / "out"),
            store_path=str(tmp_path / "store"),
            load_inputs=list,
            plan=digest_planner,
            check_prompt=check_way_prompt,
        )


def test_the_asking_bench_offers_every_way_of_the_registry():
    shown = subprocess.run(
        [sys.executable, "bench/asking.py", "--help"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    offered = re.search(r"--way \{([^}]*)\}", shown)
    assert offered is not None and offered.group(1).split(",") == list(WAYS)


def test_the_docs_list_every_way_and_how_it_asks_and_mends():
    docs = (ROOT / "docs" / "checker.md").read_text(encoding="utf-8")
    section = docs.split("## Ways of asking", 1)[1].split("\n## ", 1)[0]
    rows = {m.group(1) for m in re.finditer(r"^\| `(\w+)` \|", section, re.MULTILINE)}
    assert rows == set(WAYS)


def test_the_parameters_page_names_every_way():
    docs = (ROOT / "docs" / "parameters.md").read_text(encoding="utf-8")
    row = next(line for line in docs.splitlines() if line.startswith("| `llm.asking`"))
    assert all(f"`{name}`" in row for name in WAYS)
