"""The `papers` command line: its help, its version, the names and flags people and cron lines use, its exit codes."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
from conftest import ROOT

from papers_devtools.sim import serve
from papers_digest import __version__
from papers_digest.cli import data, runs, sample
from papers_digest.cli.main import SECTIONS, cli, main
from papers_digest.cli.runs import DatePlan
from papers_digest.core.errors import ConfigError

PAPERS = str(Path(sys.executable).parent / "papers")
LISTED = {  # what `papers --help` lists, under each heading, in this order
    "daily work": ["daily", "run"],
    "data and models": ["model", "rebuild-db", "compare"],
    "the site and email": ["site", "email"],
    "development": ["sample", "dev"],
}


def papers(capsys, *argv: str) -> tuple[int, str, str]:
    """`papers <argv>` in this process: (exit code, stdout, stderr)."""
    with pytest.raises(SystemExit) as exited:
        main(list(argv))
    out, err = capsys.readouterr()
    return exited.value.code or 0, out, err


def commands(command: click.Command, name: str = "papers") -> dict[str, click.Command]:
    """Every command under `command`, by its full name (`papers dev sim`)."""
    found = {name: command}
    if isinstance(command, click.Group):
        for sub_name, sub in command.commands.items():
            found |= commands(sub, f"{name} {sub_name}")
    return found


def listed_sections(help_text: str) -> dict[str, list[str]]:
    """The command names under each heading of `papers --help`."""
    sections: dict[str, list[str]] = {}
    heading = None
    for line in help_text.splitlines():
        if line.endswith(":") and not line.startswith(" "):
            heading = line[:-1]
            sections[heading] = []
        elif heading and line.startswith("  ") and not line.startswith("   "):
            sections[heading].append(line.split()[0])
    return {title: names for title, names in sections.items() if title in LISTED}


def test_papers_alone_lists_the_commands_by_what_operators_do_and_exits_0():
    done = subprocess.run([PAPERS], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert listed_sections(done.stdout) == LISTED
    assert list(SECTIONS) == list(LISTED)
    assert "\n  sim " not in done.stdout and "\n  replay " not in done.stdout  # under `papers dev`


def test_help_lists_the_commands_and_version_prints_the_version(capsys):
    code, out, _ = papers(capsys, "--help")
    assert code == 0 and listed_sections(out) == LISTED
    code, short, _ = papers(capsys, "-h")
    assert code == 0 and short == out
    code, out, _ = papers(capsys, "--version")
    assert code == 0 and out.strip() == f"papers {__version__}"


def test_daily_help_shows_every_flag_with_its_help(capsys):
    code, out, _ = papers(capsys, "daily", "--help")
    assert code == 0
    options = " ".join(out.split("Options:")[1].split("examples:")[0].split())  # one line, as the words run
    daily = commands(cli)["papers daily"]
    for flag in ("--date", "--from", "--to", "--no-catch-up", "--params", "--force", "--retry-failed", "--pull"):
        [option] = [p for p in daily.params if flag in p.opts]
        assert flag in options and " ".join(option.help.split()[:4]) in options, flag
    assert "--jobs N" in options and "[default: params.yaml]" in options
    assert "papers daily --date 2025-04-03" in out.split("examples:")[1]


def test_every_command_has_a_description_with_an_example_and_every_option_help_with_its_default():
    for name, command in commands(cli).items():
        assert command.help, name
        if name != "papers":
            assert command.short_help, name
            assert f"\n  {name} " in (command.epilog or "") or (command.epilog or "").endswith(name), name
        ctx = click.Context(command, info_name=name, show_default=True)
        for param in command.params:
            if not isinstance(param, click.Option) or param.name in ("help", "version"):
                continue
            assert param.help, f"{name} {param.opts}: no help"
            record = param.get_help_record(ctx)
            assert record is not None
            if isinstance(param.get_default(ctx), str | int | float) and not param.is_flag:  # a value, not unset
                assert "default" in record[1], f"{name} {param.opts}: the help does not say the default"


def test_the_dev_servers_have_a_group_and_their_old_names_still_run_unlisted(capsys, monkeypatch):
    code, out, _ = papers(capsys, "dev", "sim", "--help")
    assert code == 0 and "--batching" in out and "papers dev sim --port 8631" in out
    code, out, _ = papers(capsys, "dev", "replay", "--help")
    assert code == 0 and "--arxiv" in out
    code, out, _ = papers(capsys, "dev")
    assert code == 0 and "\n  sim " in out and "\n  replay " in out
    served: list[int] = []
    monkeypatch.setattr(serve, "serve_forever", lambda app, port: served.append(port))
    assert papers(capsys, "dev", "replay", "--port", "1")[0] == 0
    code, _, err = papers(capsys, "replay", "--port", "2")
    assert code == 0 and served == [1, 2] and err == "papers replay is now `papers dev replay`; the old name will go\n"
    code, _, err = papers(capsys, "replai")  # a mistyped command is not offered the old names
    assert code == 2 and "No such command 'replai'." in err and "Did you mean" not in err
    code, _, err = papers(capsys, "dayly")
    assert code == 2 and "Did you mean 'daily'?" in err


def _called(monkeypatch, module: Any, name: str) -> list[tuple[tuple, dict]]:
    """Replace module.name by a recorder of its calls; the command then exits 0."""
    calls: list[tuple[tuple, dict]] = []

    def record(*args: Any, **kwargs: Any) -> int:
        calls.append((args, kwargs))
        return 0

    monkeypatch.setattr(module, name, record)
    return calls


def test_the_names_and_flags_in_use_outside_the_repository_run_as_before(capsys, monkeypatch):
    daily = _called(monkeypatch, runs, "run_daily")
    argv = ("daily", "--date", "2025-04-03", "--no-catch-up", "--params", "p.yaml", "--force", "--retry-failed")
    assert papers(capsys, *argv)[0] == 0
    papers(capsys, "daily", "--from", "2025-04-01", "--to", "2025-04-03", "--jobs", "4", "--pull")
    [(one, one_options), (month, month_options)] = daily
    assert one == (Path("p.yaml"), DatePlan("2025-04-03", catch_up=False))
    assert one_options == {"force": True, "retry_failed": True, "pull": False, "jobs": 1}
    assert month == (Path("params.yaml"), DatePlan(start="2025-04-01", end="2025-04-03"))
    assert month_options == {"force": False, "retry_failed": False, "pull": True, "jobs": 4}
    here = _called(monkeypatch, runs, "run_params_date")
    assert papers(capsys, "run", "--force", "publish")[0] == 0
    assert here == [((Path("params.yaml"),), {"force": True, "targets": ["publish"]})]
    assert papers(capsys, "run", "--date", "2025-04-03")[0] == 2  # `papers run` is params.yaml's date
    samples = _called(monkeypatch, sample, "cmd_sample")
    papers(capsys, "sample")
    papers(capsys, "sample", "--engine", "sim", "--limit", "2")
    assert [args[0].engine for args, _ in samples] == ["llama-cpp", "sim"]  # what `make sample` runs, and -sim
    assert samples[1][0][0].limit == 2 and samples[1][0][0].max_tokens == sample.SAMPLE_MAX_TOKENS
    models = _called(monkeypatch, data, "cmd_model")
    papers(capsys, "model", "fetch", "--dest", "m.gguf")
    papers(capsys, "model", "fetch", "qwen2.5-coder-1.5b-instruct")
    assert [(args[0], args[2].name) for args, _ in models] == [
        (Path("m.gguf"), "qwen2.5-coder-1.5b-instruct"),  # the default model, where --dest says
        (Path("models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"), "qwen2.5-coder-1.5b-instruct"),
    ]
    rebuilt = _called(monkeypatch, data, "cmd_rebuild_db")
    papers(capsys, "rebuild-db", "--data", "d", "--db", "x.db")
    assert rebuilt == [((Path("d"), "x.db"), {})]
    sites = _called(monkeypatch, data, "cmd_site")
    papers(capsys, "site", "--db", "x.db", "--out", "o", "--base-url", "https://e.org/")
    assert sites == [(("x.db", "o", "https://e.org/", "params.yaml"), {})]


def test_a_bad_argument_exits_2_with_the_usage(capsys):
    for argv in (["daily", "--bogus"], ["nosuch"], ["daily", "--date", "2025-04-03", "--from", "2025-04-01"]):
        code, _, err = papers(capsys, *argv)
        assert code == 2 and "Usage: papers" in err, argv
    code, _, err = papers(capsys, "daily", "--jobs", "0")
    assert code == 2 and "--jobs" in err


def test_a_bad_date_is_one_line_and_exit_2(capsys, tmp_path, monkeypatch):
    shutil.copy(ROOT / "params.yaml", tmp_path / "params.yaml")
    monkeypatch.chdir(tmp_path)
    code, _, err = papers(capsys, "daily", "--date", "2025-13-01")
    assert code == 2
    assert err == "papers daily: --date must be a date written YYYY-MM-DD, got '2025-13-01'\n"


@pytest.mark.parametrize(
    ("raised", "code", "line"),
    [
        (ConfigError("no such thing"), 2, "papers site: no such thing"),
        (KeyboardInterrupt(), 130, "papers site: interrupted"),
    ],
)
def test_an_error_or_an_interrupt_is_one_line_and_its_exit_code(capsys, monkeypatch, raised, code, line):
    def fail(*args, **kwargs):
        raise raised

    monkeypatch.setattr(data, "render_site", fail)
    assert papers(capsys, "site") == (code, "", f"{line}\n")


def test_a_subcommands_error_names_it_in_full(capsys, monkeypatch):
    def fail(app, port):
        raise ConfigError("port busy")

    monkeypatch.setattr(serve, "serve_forever", fail)
    code, _, err = papers(capsys, "dev", "replay")
    assert (code, err) == (2, "papers dev replay: port busy\n")


def _without_devtools(monkeypatch) -> None:
    """As if papers-digest were installed alone (`pip install .`): the development tools cannot be imported."""
    for name in [n for n in sys.modules if n.split(".")[0] == "papers_devtools"]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "papers_devtools", None)


@pytest.mark.parametrize("argv", [["sample", "--engine", "sim"], ["dev", "sim"], ["dev", "replay"]])
def test_without_the_development_tools_a_command_that_needs_them_says_how_to_install_them(capsys, monkeypatch, argv):
    _without_devtools(monkeypatch)
    code, out, err = papers(capsys, *argv)
    assert (code, out, err.count("\n"), "pip install -e ./devtools" in err) == (2, "", 1, True)


def test_the_makefile_still_runs_the_sample_with_its_engine():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "papers sample --engine llama-cpp" in makefile and "papers sample --engine sim" in makefile
