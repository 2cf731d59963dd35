"""The `papers` command line: its help, its version, the names and flags people and cron lines use, its exit codes."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from papers_digest import __version__
from papers_digest.cli import data, runs, sample, servers
from papers_digest.cli.main import build_parser, main
from papers_digest.core.errors import ConfigError

PAPERS = str(Path(sys.executable).parent / "papers")
COMMANDS = ["daily", "run", "sample", "model", "rebuild-db", "site", "dev"]


def papers(capsys, *argv: str) -> tuple[int, str, str]:
    """`papers <argv>` in this process: (exit code, stdout, stderr)."""
    with pytest.raises(SystemExit) as exited:
        main(list(argv))
    out, err = capsys.readouterr()
    return exited.value.code or 0, out, err


def commands(parser: argparse.ArgumentParser, name: str = "papers") -> dict[str, argparse.ArgumentParser]:
    """Every parser under `parser`, by its full name (`papers dev sim`), the hidden old names too."""
    found = {name: parser}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice, sub in action.choices.items():
                found |= commands(sub, f"{name} {choice}")
    return found


def test_papers_alone_lists_the_commands_and_exits_0():
    done = subprocess.run([PAPERS], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    listed = done.stdout.split("commands:")[1]
    for name in COMMANDS:
        assert f"\n  {name} " in listed
    assert "\n  sim " not in listed and "\n  replay " not in listed  # under `papers dev`


def test_help_lists_the_commands_and_version_prints_the_version(capsys):
    code, out, _ = papers(capsys, "--help")
    assert code == 0 and all(f"\n  {name} " in out for name in COMMANDS)
    code, out, _ = papers(capsys, "--version")
    assert code == 0 and out.strip() == f"papers {__version__}"


def test_daily_help_shows_every_flag_with_its_help(capsys):
    code, out, _ = papers(capsys, "daily", "--help")
    assert code == 0
    options = " ".join(out.split("options:")[1].split("examples:")[0].split())  # one line, as the words run
    daily = commands(build_parser())["papers daily"]
    for flag in ("--date", "--from", "--to", "--no-catch-up", "--params", "--force", "--retry-failed"):
        [action] = [a for a in daily._actions if flag in a.option_strings]
        assert flag in options and " ".join(action.help.split()[:4]) in options, flag
    assert "(default: params.yaml)" in options
    assert "papers daily --date 2025-04-03" in out.split("examples:")[1]


def test_every_command_has_a_description_with_an_example_and_every_option_help_with_its_default():
    for name, parser in commands(build_parser()).items():
        if name in ("papers sim", "papers replay"):  # the old names of `papers dev sim` and `papers dev replay`
            continue
        assert parser.description, name
        if name != "papers":
            assert f"{name} " in (parser.epilog or "") or (parser.epilog or "").endswith(name), name
        formatter = parser._get_formatter()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction | argparse._HelpAction | argparse._VersionAction):
                continue
            assert action.help, f"{name} {action.option_strings or action.dest}: no help"
            shown = formatter._get_help_string(action)
            if action.option_strings and action.nargs != 0 and action.default is not None:
                assert "default" in shown, f"{name} {action.option_strings}: the help does not say the default"


def test_the_dev_servers_have_a_group_and_their_old_names_still_run(capsys):
    code, out, _ = papers(capsys, "dev", "sim", "--help")
    assert code == 0 and "--batching" in out and "papers dev sim --port 8631" in out
    code, out, _ = papers(capsys, "dev", "replay", "--help")
    assert code == 0 and "--arxiv" in out
    code, out, _ = papers(capsys, "dev")
    assert code == 0 and "sim " in out and "replay " in out
    parser = build_parser()
    old, new = parser.parse_args(["sim", "--port", "1"]), parser.parse_args(["dev", "sim", "--port", "1"])
    assert old.func is new.func is servers.cmd_sim and old.moved and not new.moved


def test_the_names_and_flags_in_use_outside_the_repository_parse_as_before():
    parse = build_parser().parse_args
    args = parse(["daily", "--date", "2025-04-03", "--no-catch-up", "--params", "p.yaml", "--force", "--retry-failed"])
    assert (args.func, args.date, args.no_catch_up, args.params, args.force, args.retry_failed) == (
        runs.cmd_daily, "2025-04-03", True, "p.yaml", True, True
    )  # fmt: skip
    args = parse(["daily", "--from", "2025-04-01", "--to", "2025-04-03"])
    assert (args.start, args.end, args.date, args.targets) == ("2025-04-01", "2025-04-03", None, [])
    args = parse(["run", "--force", "publish"])
    assert (args.func, args.here, args.targets, args.force) == (runs.cmd_daily, True, ["publish"], True)
    assert parse(["sample"]).engine == "llama-cpp"  # what `make sample` runs
    assert parse(["sample", "--engine", "sim"]).func is sample.cmd_sample
    assert parse(["model", "fetch", "--dest", "m.gguf"]).func is data.cmd_model
    assert parse(["rebuild-db", "--data", "d", "--db", "x.db"]).func is data.cmd_rebuild_db
    assert parse(["site", "--db", "x.db", "--out", "o", "--base-url", "https://e.org/"]).func is data.cmd_site


def test_a_bad_argument_exits_2_with_the_usage(capsys):
    for argv in (["daily", "--bogus"], ["nosuch"], ["daily", "--date", "2025-04-03", "--from", "2025-04-01"]):
        code, _, err = papers(capsys, *argv)
        assert code == 2 and "usage: papers" in err, argv


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
    def fail(args):
        raise raised

    monkeypatch.setattr(data, "cmd_site", fail)
    assert papers(capsys, "site") == (code, "", f"{line}\n")


def test_a_subcommands_error_names_it_in_full(capsys, monkeypatch):
    def fail(args):
        raise ConfigError("port busy")

    monkeypatch.setattr(servers, "cmd_replay", fail)
    assert papers(capsys, "dev", "replay") == (2, "", "papers dev replay: port busy\n")


def test_the_makefile_still_runs_the_sample_with_its_engine():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "papers sample --engine llama-cpp" in makefile and "papers sample --engine sim" in makefile
