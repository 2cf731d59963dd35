"""Two engine-simulator replicas behind LiteLLM's proxy, the router `llm.base_url` points to (docs/operations.md).

LiteLLM's proxy is an optional extra (`pip install -e '.[router]'`, about 750 MB): without it, this test is
skipped and says so. `PAPERS_LITELLM` may name a `litellm` installed elsewhere (its own virtual environment).
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
import sqlite_utils
import yaml
from conftest import SAMPLE_DATE, copy_project, make_params, wait_until, write_params

from papers_devtools.sim.serve import free_port
from papers_devtools.testing.harness import dvc_env
from papers_devtools.testing.servers import SIM_MODEL, engine_server, sample_replay_server

LITELLM = os.environ.get("PAPERS_LITELLM") or shutil.which("litellm", path=str(Path(sys.executable).parent))
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        LITELLM is None,
        reason="LiteLLM's proxy is not installed: pip install -e '.[router]', or set PAPERS_LITELLM to its litellm",
    ),
]


def _config(replicas: list[str]) -> dict:
    """One model_list entry per replica under the same model_name: LiteLLM spreads the calls over them."""
    params = [{"model": f"openai/{SIM_MODEL}", "api_base": url, "api_key": "none"} for url in replicas]
    entries = [{"model_name": SIM_MODEL, "litellm_params": p} for p in params]
    return {"model_list": entries, "router_settings": {"routing_strategy": "simple-shuffle"}}


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as reply:
            return reply.status == 200
    except OSError:
        return False


def test_a_day_on_two_simulator_replicas_behind_litellms_proxy(tmp_path):
    key = f"sk-{secrets.token_hex(32)}"  # the proxy refuses to start without a master key; the pipeline sends it
    port = free_port()
    config = tmp_path / "litellm.yaml"
    log = tmp_path / "litellm.log"
    with (
        sample_replay_server() as (_replay, replay_url),
        engine_server() as (first, first_url),
        engine_server() as (second, second_url),
    ):
        config.write_text(yaml.safe_dump(_config([first_url, second_url])), encoding="utf-8")
        env = {**os.environ, "LITELLM_MASTER_KEY": key, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}  # offline
        with log.open("wb") as out:
            router = subprocess.Popen(
                [str(LITELLM), "--config", str(config), "--host", "127.0.0.1", "--port", str(port)],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
            )
        try:
            health = f"http://127.0.0.1:{port}/health/liveliness"
            wait_until(lambda: router.poll() is None and _answers(health), timeout_s=180, what="LiteLLM's proxy")
            project = copy_project(tmp_path / "project")
            params = make_params(
                source={"hf_url": replay_url, "arxiv_url": replay_url, "arxiv_interval_s": 0},
                llm={"base_url": f"http://127.0.0.1:{port}/v1", "model": SIM_MODEL, "concurrency": 4},
            )
            write_params(project, params)
            done = subprocess.run(
                [str(Path(sys.executable).parent / "papers"), "daily", "--date", SAMPLE_DATE],
                cwd=project,
                env=dvc_env(OPENAI_LLM_API_KEY=key),
                capture_output=True,
                text=True,
                timeout=600,
            )
        finally:
            router.terminate()
            router.wait(timeout=30)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:] + log.read_text()[-2000:]
    served = [[r for r in sim.stats.records if r.path == "/v1/chat/completions"] for sim in (first, second)]
    assert all(served), f"both replicas answer: {[len(s) for s in served]}"
    run = sqlite_utils.Database(project / "data" / "papers.db")["runs"].get(SAMPLE_DATE)
    assert run["papers_done"] == 4 and run["llm_calls"] == sum(len(s) for s in served)
    assert key not in (project / "data" / SAMPLE_DATE / "calls.jsonl").read_text()  # the key never reaches a file
