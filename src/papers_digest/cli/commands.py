"""What every `papers` command shares: its help's layout, and an expected error or an interrupt as one line."""

from __future__ import annotations

from typing import Any

import click

from papers_digest.core.errors import PipelineError

# -h as well as --help; every option's default in its help; lines up to 100 columns on a wide terminal.
# Subcommands inherit these from `papers`.
CONTEXT: dict[str, Any] = {"help_option_names": ["-h", "--help"], "show_default": True, "max_content_width": 100}


class Command(click.Command):
    """A `papers` command: its callback returns the exit code; an expected failure (PipelineError) or an
    interrupt (Ctrl-C, or SIGTERM turned into one) is one line naming the command in full (`papers dev sim:
    …`), no traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            code = super().invoke(ctx)
        except PipelineError as exc:
            click.echo(f"{ctx.command_path}: {exc}", err=True)
            code = exc.exit_code
        except KeyboardInterrupt:  # the cleanup (engine stopped, params.yaml restored) ran on the way here
            click.echo(f"{ctx.command_path}: interrupted", err=True)
            code = 130
        ctx.exit(code or 0)


class CommandGroup(click.Group):
    """A group of `papers` commands (`papers`, `papers model`, `papers dev`): run alone, it prints its help and
    exits 0; its commands are listed in the order they were added."""

    command_class = Command

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("invoke_without_command", True)
        kwargs.setdefault("callback", _help_when_alone)
        super().__init__(*args, **kwargs)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)


@click.pass_context
def _help_when_alone(ctx: click.Context) -> None:
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())


def examples(*lines: str) -> str:
    """An epilog of example command lines, kept as written (click rewraps other paragraphs)."""
    return "\b\nexamples:\n" + "\n".join(f"  {line}" for line in lines)
