"""The store of finished work: reruns after a crash, a bigger limit or a forced repro never pay twice."""

import json
from pathlib import Path

import pytest
from conftest import (
    SAMPLE_DATE,
    chat_calls,
    copy_project,
    kill_dvc_when,
    make_params,
    run_dvc,
    sent_calls,
    wait_until,
    write_params,
)

from papers_digest.core.store import Store, request_key


def test_entries_round_trip_and_keys_follow_the_exact_request(tmp_path):
    store = Store(tmp_path)
    request = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    key = request_key("chat", request)
    assert store.get("llm", key) is None
    store.put("llm", key, {"content": "hello"})
    assert store.get("llm", key) == {"content": "hello"}
    assert (store.hits, store.misses) == (1, 1)
    # Any change to the request (a setting, a message, the model) is another entry.
    assert request_key("chat", {**request, "temperature": 0.2}) != key
    assert request_key("chat", {**request, "model": "n"}) != key
    assert request_key("chat", dict(reversed(list(request.items())))) == key  # key order does not matter


def test_a_damaged_entry_is_dropped_and_never_read_back(tmp_path):
    store = Store(tmp_path)
    key = request_key("chat", {"x": 1})
    store.put("llm", key, {"content": "a long answer " * 100})
    path = store.path("llm", key)
    path.write_bytes(path.read_bytes()[:40])  # as if the disk had kept half of it
    assert store.get("llm", key) is None
    assert not path.exists()
    assert not list(tmp_path.rglob("*.tmp"))  # writes go through a temporary file and a rename


def test_a_disabled_store_neither_reads_nor_writes(tmp_path):
    store = Store(tmp_path, enabled=False)
    store.put("llm", "ab" * 32, {"content": "x"})
    assert store.get("llm", "ab" * 32) is None
    assert not any(tmp_path.iterdir())


def _params(replay_url: str, llm_url: str, **overrides):
    llm = {"base_url": llm_url, "model": "sim-digest", "concurrency": 1, **overrides.pop("llm", {})}
    return make_params(
        source={"hf_url": replay_url, "arxiv_url": replay_url, "arxiv_interval_s": 0}, llm=llm, **overrides
    )


def _picked(project: Path) -> list[str]:
    return json.loads((project / "data" / SAMPLE_DATE / "list.json").read_text(encoding="utf-8"))["picked"]


def _calls(result: Path) -> list[dict]:
    return json.loads(result.read_text(encoding="utf-8"))["calls"]


def _llm_entries(project: Path) -> int:
    return len(list((project / "data" / "store" / "llm").rglob("*.json.gz")))


@pytest.mark.slow
def test_a_killed_stage_loses_only_the_calls_in_flight(tmp_path, sample_replay, engine):
    _, replay_url = sample_replay
    sim, llm_url = engine
    sim.latency_s = 0.4  # four digest calls one at a time: about 1.6 s of digest_en to kill in
    project = copy_project(tmp_path)
    write_params(project, _params(replay_url, llm_url))
    # kill -9 of dvc and the stage process, mid digest_en
    kill_dvc_when(project, lambda: _llm_entries(project) >= 2, "repro")
    finished = _llm_entries(project)
    assert finished >= 2
    # every entry the killed stage left is whole: written to a temporary file, then renamed into place
    store = Store(project / "data" / "store")
    for path in (project / "data" / "store" / "llm").rglob("*.json.gz"):
        assert store.get("llm", path.name.removesuffix(".json.gz")) is not None, path

    # the engine still finishes the request the killed client sent
    wait_until(lambda: not sim.stats.in_flight, timeout_s=30, what="the engine to finish the killed run's call")
    sim.latency_s = 0.0
    sim.reset_stats()
    run_dvc(project, "repro", "publish")
    english = [c for p in (project / "data" / SAMPLE_DATE / "digest_en").glob("2*.json") for c in _calls(p)]
    asked = [r for r in sim.stats.records if r.kind in ("digest", "steps")]  # asked at once or in steps
    # every finished call came from the store, only the rest was asked
    assert (sum(bool(c.get("from_store")) for c in english), len(asked)) == (finished, len(english) - finished)
    assert [r for r in sim.stats.records if r.kind == "translate"] != []
    db_calls = json.loads((project / "data" / SAMPLE_DATE / "run.json").read_text())
    assert db_calls["papers_done"] == 4


@pytest.mark.slow
def test_a_bigger_limit_or_a_forced_rerun_repeats_no_finished_work(tmp_path, sample_replay, engine):
    replay, replay_url = sample_replay
    sim, llm_url = engine
    project = copy_project(tmp_path)
    write_params(project, _params(replay_url, llm_url, limit=2))
    run_dvc(project, "repro", "publish")
    first, old = chat_calls(sim), set(_picked(project))
    arxiv_before = replay.requests["arxiv"]

    write_params(project, _params(replay_url, llm_url, limit=4))
    run_dvc(project, "repro", "publish")
    new = set(_picked(project)) - old
    # only the two new papers were generated: what their records say was sent
    assert chat_calls(sim) - first == sent_calls(project, "digest_en", new) + sent_calls(project, "translate_zh", new)
    second = chat_calls(sim)
    new_pages = replay.requests["arxiv"] - arxiv_before
    assert new_pages in (2, 3)  # the two new papers (one is redirected to its versioned page)

    arxiv_before = replay.requests["arxiv"]
    forced = run_dvc(project, "repro", "--force", "publish")
    assert chat_calls(sim) == second
    assert replay.requests["arxiv"] == arxiv_before
    assert "answers reused from the store" in forced.stdout
    calls = [json.loads(line) for line in (project / "data" / SAMPLE_DATE / "calls.jsonl").read_text().splitlines()]
    assert calls and all(c["from_store"] for c in calls)

    # With reuse off (benchmarks), a forced rerun asks the engine again; arXiv pages are still reused.
    write_params(project, _params(replay_url, llm_url, limit=4, llm={"reuse": False}))
    run_dvc(project, "repro", "--force", "digest_en", "--single-item")
    assert chat_calls(sim) - second == sent_calls(project, "digest_en") > 0


def test_the_publish_fingerprint_changes_with_any_input_byte_the_code_or_the_options(tmp_path):
    """What decides whether a publish has anything to do (stages/publish.py): the day's files, the code, the
    site options; not where the project lies."""
    from papers_digest.day.fingerprint import publish_fingerprint

    def project(root: Path) -> tuple[list[Path], list[Path]]:
        (root / "digest_en").mkdir(parents=True)
        (root / "list.json").write_text('{"date": "2025-04-03"}')
        (root / "digest_en" / "2503.20783.json").write_text('{"status": "done"}')
        (root / "code.py").write_text("X = 1\n")
        return [root / "list.json", root / "digest_en", root / "translate_zh"], [root / "code.py"]

    inputs, code = project(tmp_path / "a")
    first = publish_fingerprint(inputs, code, "data/site")
    assert publish_fingerprint(*project(tmp_path / "b"), "data/site") == first  # another folder, same files
    assert publish_fingerprint(inputs, code, "data/other-site") != first
    (tmp_path / "a" / "digest_en" / "2503.20783.json").write_text('{"status": "failed"}')
    second = publish_fingerprint(inputs, code, "data/site")
    assert second != first
    (tmp_path / "a" / "code.py").write_text("X = 2\n")
    third = publish_fingerprint(inputs, code, "data/site")
    assert third != second
    (tmp_path / "a" / "translate_zh").mkdir()  # a missing input is not an empty one
    assert publish_fingerprint(inputs, code, "data/site") != third


def test_artefacts_are_written_whole_and_readable_by_other_users(tmp_path):
    """A stage's JSON is renamed into place from a temporary file (never half-written), with the mode open()
    would give it, not mkstemp's 0600: an analyst or a web server running as another user reads data/."""
    from papers_digest.core.artefacts import write_json, write_jsonl
    from papers_digest.core.models import Paper

    write_json(tmp_path / "day" / "list.json", {"papers": ["2504.00001"]})
    write_jsonl(tmp_path / "day" / "calls.jsonl", [Paper(arxiv_id="2504.00001", title="t")])
    opened = tmp_path / "opened"
    opened.write_text("")  # as open() makes a file under this process's umask
    for name in ("list.json", "calls.jsonl"):
        assert (tmp_path / "day" / name).stat().st_mode & 0o777 == opened.stat().st_mode & 0o777
    assert sorted(p.name for p in (tmp_path / "day").iterdir()) == ["calls.jsonl", "list.json"]  # no temp file
