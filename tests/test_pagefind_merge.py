"""Merging Pagefind indexes file by file (site/pagefind_merge.py): the merge of two days' indexes holds what
Pagefind's own index of both days holds, word for word, cut into the same chunks."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from papers_digest.site import pagefind_merge
from papers_digest.site.pagefind_merge import SIGNATURE, MergeError, Part, decode, encode, merge, read_part
from papers_digest.site.search import LANGUAGE, _run, pagefind_binary

DAYS = {
    "2025-03-30": [
        ("a", "Zebrafish routers offload caches", "斑马鱼的路由器 cache offloading works"),
        ("b", "Café latency of routers", "路由器延迟 café and cafe both"),
    ],
    "2025-03-31": [
        ("c", "Routers for zebrafish", "路由器 zebrafish again, cafés"),
        ("d", "Offloading in a café", "卸载 offloading 缓存 caches"),
        ("e", "Nothing shared", "完全 不同 的 words"),
    ],
}


def _write(folder: Path, dates: list[str]) -> None:
    for date in dates:
        for name, title, body in DAYS[date]:
            page = folder / date / f"{name}.html"
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text(
                f'<!doctype html><html lang="zh"><head><title>{title}</title></head><body>'
                f"<article data-pagefind-body><h1>{title}</h1><p>{body}</p></article></body></html>",
                encoding="utf-8",
            )


def _bundle(tmp: Path, name: str, dates: list[str]) -> Path:
    site = tmp / name / "site"
    _write(site, dates)
    out = tmp / name / "bundle"
    _run(pagefind_binary(), site, out, glob="*/*.html")
    return out


def _unpack(path: Path) -> bytes:
    return gzip.decompress(path.read_bytes())[len(SIGNATURE) :]


def _files(bundle: Path) -> tuple[bytes, dict[str, bytes]]:
    entry = json.loads((bundle / "pagefind-entry.json").read_text(encoding="utf-8"))
    meta = _unpack(bundle / f"pagefind.{entry['languages'][LANGUAGE]['hash']}.pf_meta")
    chunks = {p.name.removesuffix(".pf_index"): _unpack(p) for p in (bundle / "index").glob("*.pf_index")}
    return meta, chunks


def _urls(bundles: list[Path]) -> dict[str, str]:
    """Fragment hash -> the page's URL, over the bundles."""
    urls = {}
    for bundle in bundles:
        for fragment in (bundle / "fragment").glob("*.pf_fragment"):
            urls[fragment.name.removesuffix(".pf_fragment")] = json.loads(_unpack(fragment))["url"]
    return urls


def _content(meta: bytes, chunks: dict[str, bytes], urls: dict[str, str]) -> dict:
    """What an index says, page numbers resolved: (word or (word, variant)) -> {url: (locations, meta ones)}."""
    _, pages, bounds, *_ = decode(meta)
    found: dict = {}
    for _, _, name in bounds:
        for word, word_pages, variants in decode(chunks[name])[0]:
            for key, listed in [(word, word_pages)] + [((word, form), p) for form, p in variants]:
                page = 0
                for delta, locations, meta_locations in listed:
                    page += delta
                    found.setdefault(key, {})[urls[pages[page][0]]] = (locations, meta_locations)
    return found


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    if pagefind_binary() is None:
        pytest.skip("Pagefind is not installed")
    tmp = tmp_path_factory.mktemp("pagefind")
    dates = list(DAYS)
    return {
        "first": _bundle(tmp, "first", dates[:1]),
        "second": _bundle(tmp, "second", dates[1:]),
        "both": _bundle(tmp, "both", dates),
    }


def test_cbor_as_pagefind_writes_it_decodes_and_encodes_to_the_same_bytes(built):
    meta, chunks = _files(built["both"])
    for data in [meta, *chunks.values()]:
        assert encode(decode(data)) == data
    with pytest.raises(MergeError):
        decode(b"\xa1\x01\x02")  # a map: Pagefind writes none


def test_the_merge_of_two_days_holds_what_pagefinds_index_of_both_holds(built):
    parts = [read_part(*_files(built[name])) for name in ("first", "second")]
    merged = merge(parts, LANGUAGE)
    urls = _urls([built["first"], built["second"]])
    assert _content(merged.meta, merged.chunks, urls) == _content(*_files(built["both"]), _urls([built["both"]]))
    assert merged.page_count == 5
    assert decode(merged.meta)[5] == decode(_files(built["both"])[0])[5]  # the meta fields (title)


def test_a_part_survives_its_json_and_merges_in_chunks_cut_where_pagefind_cuts_them(built, monkeypatch, tmp_path):
    monkeypatch.setattr(pagefind_merge, "CHUNK_SIZE", 6)
    monkeypatch.setenv("PAGEFIND_UNSTABLE_INDEX_CHUNK_SIZE", "6")
    small = _bundle(tmp_path, "small", list(DAYS))
    parts = [read_part(*_files(built[name])) for name in ("first", "second")]
    parts = [Part.from_json(json.loads(json.dumps(p.to_json())), p.data) for p in parts]
    merged = merge(parts, LANGUAGE)
    bounds = [b[:2] for b in decode(merged.meta)[2]]
    assert len(bounds) > 3
    assert bounds == [b[:2] for b in decode(_files(small)[0])[2]]
    urls = _urls([built["first"], built["second"]])
    assert _content(merged.meta, merged.chunks, urls) == _content(*_files(small), _urls([small]))


def test_an_index_with_filters_or_of_another_version_is_refused(built):
    meta, chunks = _files(built["first"])
    fields = decode(meta)
    with pytest.raises(MergeError, match="filters"):
        read_part(encode([*fields[:3], [["author", "x"]], *fields[4:]]), chunks)
    other = read_part(encode(["0.9", *fields[1:]]), chunks)
    with pytest.raises(MergeError, match="versions"):
        merge([read_part(meta, chunks), other], LANGUAGE)
