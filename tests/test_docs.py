"""The documentation holds together: every cited page and section exists, the README stays short, the site
lists every page. Fast: reads files only (`mkdocs build --strict` in .ci/run checks the rendered links).

A citation is written in one of two forms, in code, Markdown and config alike:

    docs/design.md §4                    a numbered section: a heading that starts with `4.`
    docs/architecture.md, "Outages"      a heading, its title quoted exactly

A bare `docs/<page>.md` cites the page. `README, "<heading>"` cites a section of the README.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SCANNED = ["src", "devtools", "stages", "bench", "tests", "notebooks", "sample", "docs"]
SCANNED_FILES = ["Makefile", "params.yaml", "dvc.yaml", "README.md", "pyproject.toml", "mkdocs.yml", ".ci/run"]
SUFFIXES = {".py", ".md", ".ipynb", ".yaml", ".yml", ".toml", ".txt", ""}
README_MAX_LINES = 200

# `docs/<page>.md`, then optionally ` §N` or `, "Title"` (a title may wrap onto the next line).
CITATION = re.compile(r'docs/(?P<page>[\w-]+\.md)(?:\s+§(?P<number>\d+)|,\s+"(?P<title>[^"\n]+(?:\n[^"\n]+)?)")?')
# The old form without the comma: `docs/page.md "Title"`; it must be written with one.
UNNORMALISED = re.compile(r'docs/[\w-]+\.md "')
README_CITATION = re.compile(r'README(?:\.md)?, "(?P<title>[^"\n]+)"')
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$", re.M)


def _sources() -> list[Path]:
    files = [ROOT / name for name in SCANNED_FILES if (ROOT / name).is_file()]
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*")):
            parts = path.relative_to(ROOT).parts
            skipped = (
                not path.is_file()
                or path.suffix not in SUFFIXES
                or path == Path(__file__)  # its examples
                or any(part.endswith(".egg-info") for part in parts)  # pip's copy of the README
                or {"__pycache__", ".ipynb_checkpoints"} & set(parts)
                or parts[:2] == ("tests", "data")  # recorded pages and answers, not our prose
            )
            if not skipped:
                files.append(path)
    return files


def _read(path: Path) -> str:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return ""
    if path.suffix == ".ipynb":  # JSON strings: a newline inside a citation is `\n`
        text = text.replace("\\n", "\n")
    return text


def _plain(title: str) -> str:
    """A heading's or a cited title's words: Markdown marks, links and extra spaces dropped."""
    title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title)
    title = re.sub(r"\s*\{#[^}]*\}$", "", title)
    return " ".join(title.replace("`", "").replace("*", "").split())


def _headings(path: Path) -> list[str]:
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.M | re.S)  # not code
    return [_plain(m.group(2)) for m in HEADING.finditer(text)]


def _citations() -> list[tuple[str, re.Match[str]]]:
    found = []
    for path in _sources():
        text = _read(path)
        for m in CITATION.finditer(text):
            found.append((f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}", m))
    return found


def test_every_cited_page_and_section_exists():
    problems = []
    for where, m in _citations():
        page = DOCS / m["page"]
        if not page.is_file():
            problems.append(f"{where}: docs/{m['page']} does not exist")
            continue
        headings = _headings(page)
        if m["number"] and not any(re.match(rf"{m['number']}[.\s]", h) for h in headings):
            problems.append(f"{where}: docs/{m['page']} has no section §{m['number']}")
        if m["title"] and _plain(m["title"]) not in headings:
            problems.append(f"{where}: docs/{m['page']} has no heading {_plain(m['title'])!r}")
    assert not problems, "\n".join(problems)


def test_citations_use_one_form():
    problems = []
    for path in _sources():
        text = _read(path)
        for m in UNNORMALISED.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            problems.append(f'{path.relative_to(ROOT)}:{line}: write a section as docs/<page>.md, "<heading>"')
    assert not problems, "\n".join(problems)


def test_every_cited_readme_section_exists():
    headings = _headings(ROOT / "README.md")
    problems = []
    for path in _sources():
        text = _read(path)
        for m in README_CITATION.finditer(text):
            if _plain(m["title"]) not in headings:
                line = text.count("\n", 0, m.start()) + 1
                where = f"{path.relative_to(ROOT)}:{line}"
                problems.append(f"{where}: README.md has no heading {m['title']!r} (cite the docs/ page that has it)")
    assert not problems, "\n".join(problems)


def test_the_citation_pattern_reads_both_forms():
    text = 'see docs/design.md §4 and (docs/architecture.md, "Talking to the endpoint") and docs/site.md.'
    found = [(m["page"], m["number"], m["title"]) for m in CITATION.finditer(text)]
    assert found == [
        ("design.md", "4", None),
        ("architecture.md", None, "Talking to the endpoint"),
        ("site.md", None, None),
    ]
    assert UNNORMALISED.search('docs/architecture.md "Outages"')


def test_readme_is_short():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md: {lines} lines, at most {README_MAX_LINES}; move detail into docs/"


def _nav_pages(nav: object) -> list[str]:
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, list):
        return [page for item in nav for page in _nav_pages(item)]
    if isinstance(nav, dict):
        return [page for value in nav.values() for page in _nav_pages(value)]
    return []


def test_the_site_lists_every_page():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["docs_dir"] == "docs"
    listed = _nav_pages(config["nav"])
    pages = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
    missing, extra = set(pages) - set(listed), set(listed) - set(pages)
    assert not missing and not extra, f"mkdocs.yml nav: missing {sorted(missing)}, not in docs/ {sorted(extra)}"
    assert len(listed) == len(set(listed)), "a page is listed twice in mkdocs.yml nav"


def test_every_checker_rule_is_documented():
    from papers_digest.checker.problems import RULES

    text = (DOCS / "checker.md").read_text(encoding="utf-8")
    missing = [rule for rule in RULES if f"`{rule}`" not in text]
    assert not missing, f"docs/checker.md does not list the rules {missing}: add them to its rule table"


def test_every_param_is_documented():
    from papers_digest.core.params import Params

    text = (DOCS / "parameters.md").read_text(encoding="utf-8")

    def keys(model: type, prefix: str = "") -> list[str]:
        out = []
        for name, info in model.model_fields.items():
            sub = info.annotation
            if isinstance(sub, type) and hasattr(sub, "model_fields"):
                out += keys(sub, f"{prefix}{name}.")
            else:
                out.append(f"{prefix}{name}")
        return out

    missing = [key for key in keys(Params) if f"`{key}`" not in text]
    assert not missing, f"docs/parameters.md does not document {missing}"


def test_architecture_names_every_module():
    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    packages = [ROOT / "src" / "papers_digest", ROOT / "devtools" / "src" / "papers_devtools"]
    modules = [p for package in packages for p in sorted(package.glob("*/*.py")) if p.name != "__init__.py"]
    missing = [str(p.relative_to(ROOT)) for p in modules if f"`{p.name}`" not in text]
    assert not missing, f"docs/architecture.md, 'Where each concern lives', does not name {missing}"
