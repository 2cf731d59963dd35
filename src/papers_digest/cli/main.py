"""`papers`: the daily job, managed engine runs, the offline sample day, local servers, rebuilding the views."""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Callable

from papers_digest import __version__
from papers_digest.cli import compare, data, mail, runs, sample, servers
from papers_digest.core.errors import PipelineError

# Each module adds its commands with `register(sub)`, in the order `papers --help` lists them; a new command
# is one more register function here. A command's parser takes `help=` (its line in the list), `description=`
# (with an example) and sets `func`; every option takes `help=`, and its default is added when it has one.
COMMANDS = (runs, mail, sample, data, servers, compare)

DESCRIPTION = """\
Daily Hugging Face papers -> arXiv full text -> checked English and Chinese digests, as a DVC pipeline.
Run a command with --help for its options and an example.

examples:
  papers daily                     # yesterday (UTC) and the days missed before it
  papers daily --date 2025-04-03   # one day
  papers sample                    # the bundled sample day on the offline model (make sample)
"""


class HelpFormatter(argparse.HelpFormatter):
    """Descriptions as written: a paragraph is refilled to the terminal, indented lines (examples) are kept;
    an option's help ends with its default when it has one and does not already say it."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        paragraphs = []
        for paragraph in textwrap.dedent(text).strip("\n").split("\n\n"):
            lines = paragraph.splitlines()
            kept = [line for line in lines if line.startswith(" ") or line.endswith(":")]
            if kept:  # examples: one per line, as written
                paragraphs.append("\n".join(indent + line for line in lines))
            else:
                paragraphs.append(textwrap.fill(" ".join(paragraph.split()), width, initial_indent=indent,
                                                subsequent_indent=indent))  # fmt: skip
        return "\n\n".join(paragraphs)

    def _format_action(self, action: argparse.Action) -> str:
        if isinstance(action, argparse._SubParsersAction):  # the commands, listed as options are, no header line
            return "".join(self._format_action(choice) for choice in action._get_subactions())
        return super()._format_action(action)

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        shown = action.option_strings and action.nargs != 0 and action.default not in (None, argparse.SUPPRESS)
        if shown and "default" not in text:
            text += " (default: %(default)s)"
        return text


class Parser(argparse.ArgumentParser):
    """Every `papers` parser, subcommands included (argparse makes them of the parent's class)."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)


def build_parser() -> Parser:
    parser = Parser(prog="papers", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", title="commands", metavar="COMMAND")
    for module in COMMANDS:
        module.register(sub)
    _name_commands(parser, "")
    return parser


def _name_commands(parser: argparse.ArgumentParser, name: str) -> None:
    """Each command knows its full name (`dev sim`) for its error lines; a group run without a subcommand
    (`papers`, `papers dev`, `papers model`) prints its help and exits 0."""
    parser.set_defaults(command_name=name)
    if parser.get_default("func") is None:
        parser.set_defaults(func=_show_help(parser))
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice, subparser in action.choices.items():
                if subparser.prog.endswith(f" {choice}"):  # an alias has the same parser, named already
                    _name_commands(subparser, f"{name} {choice}".strip())


def _show_help(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    def show(args: argparse.Namespace) -> int:
        parser.print_help()
        return 0

    return show


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    name = f"papers {args.command_name}".strip()
    try:
        code = args.func(args)
    except PipelineError as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        code = exc.exit_code
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: cleanup (engine stopped, params.yaml restored) ran on the way
        print(f"{name}: interrupted", file=sys.stderr)
        code = 130
    sys.exit(code)


if __name__ == "__main__":
    main()
