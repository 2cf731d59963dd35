"""`papers`: the daily job, managed engine runs, the offline sample day, local servers, rebuilding the views."""

from __future__ import annotations

import click

from papers_digest import __version__
from papers_digest.cli import compare, data, mail, runs, sample, servers
from papers_digest.cli.commands import CONTEXT, CommandGroup

# The commands as operators see them, in the order `papers --help` lists them; a new command goes into one of
# these. Each command has `short_help` (its line in the list), `help` (what it does), an epilog with an example,
# and `help=` on every option (click adds the default).
SECTIONS: dict[str, list[click.Command]] = {
    "daily work": [runs.daily_command, runs.run_command],
    "data and models": [data.model_group, data.rebuild_db_command, compare.compare_command],
    "the site and email": [data.site_command, mail.email_command],
    "development": [sample.sample_command, servers.dev_group],
}

DESCRIPTION = """\
Daily Hugging Face papers -> arXiv full text -> checked English and Chinese digests, as a DVC pipeline.
Run a command with --help for its options and an example.

\b
examples:
  papers daily                     # yesterday (UTC) and the days missed before it
  papers daily --date 2025-04-03   # one day
  papers sample                    # the bundled sample day on the offline model (make sample)
"""


class Papers(CommandGroup):
    """The top-level group: its commands listed under SECTIONS' headings; `papers sim` and `papers replay`, the
    names `papers dev sim` and `papers dev replay` had before the dev group, still run but are neither listed
    nor offered for a mistyped command."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return super().get_command(ctx, cmd_name) or servers.MOVED.get(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        width = max(len(c.name or "") for commands in SECTIONS.values() for c in commands)
        for title, commands in SECTIONS.items():  # the names padded alike, so every section's lines align
            with formatter.section(title):
                formatter.write_dl([((c.name or "").ljust(width), c.get_short_help_str()) for c in commands])


cli = click.version_option(__version__, "--version", prog_name="papers", message="%(prog)s %(version)s")(
    Papers(
        name="papers",
        help=DESCRIPTION,
        context_settings=CONTEXT,
        commands=[command for commands in SECTIONS.values() for command in commands],
    )
)


def main(argv: list[str] | None = None) -> None:
    """`papers`: always ends in SystemExit with the command's exit code (2 for a usage error)."""
    cli.main(args=argv, prog_name="papers")


if __name__ == "__main__":
    main()
