"""Merge Pagefind indexes into one, file by file, without running Pagefind again (pure logic: bytes in, bytes out).

Pagefind builds an index from HTML in one process that holds every page (its time and memory grow with the
pages: docs/performance.md), and it cannot add pages to an index it built. But its index is plain data, and
merging is a concatenation: the pages of one index follow those of the one before, and a word's list of pages
is the first index's list, then the next one's with its page numbers moved up. Page numbers are stored as the
difference to the page before in the list, so only the first page of each list appended changes: the rest of
its bytes are copied. So each day is indexed by Pagefind alone (20 pages), read once into `Part` (its words,
each with its list of pages as bytes), and a month is merged from its days' parts, word by word, never page by
page: a month's merge handles a hundred thousand words, not millions of locations.

The format is Pagefind 1.5's (pagefind/src/index in its source): files are gzip of b"pagefind_dcd" and CBOR.
- `pagefind.<hash>.pf_meta`: [version, pages [[fragment hash, word count]], chunks [[from, to, hash]],
  filters, sorts, meta fields];
- `index/<hash>.pf_index`: [[word, pages, variants]], words sorted; pages [[page delta, locations, meta
  locations]], page numbers delta-encoded within each list; variants [[form, pages]] (other diacritics);
- `fragment/<hash>.pf_fragment`: one page's JSON, copied as it is.
Words are cut into chunks as Pagefind cuts them (`chunk_index`, `chunk_meta`: 20,000 locations a chunk, the
bounds shortened to the prefixes that tell neighbours apart), so the browser asks for the chunks it would ask
of a Pagefind-built index. Filters and sorts are not merged: this site has none, and an index with them is
refused (`MergeError`), as is a part of another Pagefind version.
"""

from __future__ import annotations

import hashlib
import itertools
import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass

SIGNATURE = b"pagefind_dcd"
CHUNK_SIZE = 20_000  # Pagefind's default index_chunk_size: locations (and one per page) per chunk
# A list of pages, read once: (pages, first page's delta, sum of the deltas, and where its bytes after that
# first delta start and end in the part's `data`).
Pages = tuple[int, int, int, int, int]


class MergeError(ValueError):
    """An index this merge does not understand (another version, filters, sorts, a broken file)."""


# ------------------------------------------------------------------------------------------ CBOR, the subset


def decode(data: bytes) -> object:
    """The CBOR value `data` holds: integers, strings and definite arrays, all Pagefind writes."""
    value, end = _decode(data, 0)
    if end != len(data):
        raise MergeError(f"{len(data) - end} bytes after the CBOR value")
    return value


def _uint(data: bytes, at: int) -> tuple[int, int, int]:
    """(major type, argument, next offset) of the CBOR head at `at`."""
    try:
        head = data[at]
    except IndexError:
        raise MergeError("CBOR data ends early") from None
    major, low = head >> 5, head & 31
    if low < 24:
        return major, low, at + 1
    if low == 24:
        return major, data[at + 1], at + 2
    if low == 25:
        return major, struct.unpack_from(">H", data, at + 1)[0], at + 3
    if low == 26:
        return major, struct.unpack_from(">I", data, at + 1)[0], at + 5
    if low == 27:
        return major, struct.unpack_from(">Q", data, at + 1)[0], at + 9
    raise MergeError(f"CBOR item {head:#x} not written by Pagefind")


def _decode(data: bytes, at: int) -> tuple[object, int]:
    major, n, at = _uint(data, at)
    if major == 0:
        return n, at
    if major == 1:
        return -1 - n, at
    if major == 3:
        return data[at : at + n].decode("utf-8"), at + n
    if major == 4:
        items = []
        for _ in range(n):
            item, at = _decode(data, at)
            items.append(item)
        return items, at
    raise MergeError(f"CBOR major type {major} not written by Pagefind")


def _head(major: int, n: int) -> bytes:
    if n < 24:
        return bytes((major << 5 | n,))
    if n < 0x100:
        return bytes((major << 5 | 24, n))
    if n < 0x10000:
        return bytes((major << 5 | 25,)) + n.to_bytes(2, "big")
    if n < 0x100000000:
        return bytes((major << 5 | 26,)) + n.to_bytes(4, "big")
    return bytes((major << 5 | 27,)) + n.to_bytes(8, "big")


def encode(value: object) -> bytes:
    """`value` (integers, strings, lists) as CBOR, with the shortest heads, as minicbor writes them."""
    if isinstance(value, list):
        return _head(4, len(value)) + b"".join(encode(item) for item in value)
    if isinstance(value, bool):
        raise MergeError("cannot encode bool")
    if isinstance(value, int):
        return _head(0, value) if value >= 0 else _head(1, -1 - value)
    if isinstance(value, str):
        raw = value.encode("utf-8")
        return _head(3, len(raw)) + raw
    raise MergeError(f"cannot encode {type(value).__name__}")


# Integers only (major types 0 and 1), `n` of them: how a list of locations is skipped without reading it.
_INT = rb"(?:[\x00-\x17\x20-\x37]|[\x18\x38].|[\x19\x39]..|[\x1a\x3a]....|[\x1b\x3b]........)"
_INTS: dict[int, re.Pattern[bytes]] = {}


def _skip_ints(data: bytes, at: int) -> tuple[int, int]:
    """Skip an array of integers at `at`: (its length, the offset after it)."""
    major, n, at = _uint(data, at)
    if major != 4:
        raise MergeError("a list of locations that is not an array")
    if n == 0:
        return 0, at
    pattern = _INTS.get(n)
    if pattern is None:
        pattern = _INTS[n] = re.compile(_INT + b"{%d}" % n, re.DOTALL)
    found = pattern.match(data, at)
    if found is None:
        raise MergeError("a list of locations holds something else than integers")
    return n, found.end()


# ------------------------------------------------------------------------------------------ a day's part


@dataclass
class Part:
    """One index read for merging: its pages and its words, each word's lists of pages as places in `data`, its
    chunks' bytes one after the other. Kept as JSON (`to_json`, without `data`) and the bytes."""

    version: str
    pages: list[list]  # [[fragment hash, word count]], in page-number order
    meta_fields: list[str]
    words: list[list]  # [[word, Pages, locations, [[form, Pages], ...]]], sorted by word
    data: bytes = b""

    def to_json(self) -> dict:
        return {"version": self.version, "pages": self.pages, "meta_fields": self.meta_fields, "words": self.words}

    @classmethod
    def from_json(cls, data: dict, raw: bytes) -> Part:
        return cls(data["version"], data["pages"], data["meta_fields"], data["words"], raw)


def read_part(meta: bytes, chunks: dict[str, bytes]) -> Part:
    """A Pagefind index (its metadata and its chunks by hash, CBOR without the signature) as a Part."""
    decoded = decode(meta)
    if not isinstance(decoded, list) or len(decoded) != 6:
        raise MergeError("not a Pagefind 1.5 metadata file")
    version, pages, bounds, filters, sorts, meta_fields = decoded
    if filters or sorts:
        raise MergeError("an index with filters or sorts")
    words: list[list] = []
    data = b"".join(chunks[bound[2]] for bound in bounds)
    at = 0
    for _ in bounds:
        major, count, at = _uint(data, at)
        major2, n, at = _uint(data, at)
        if (major, count, major2) != (4, 1, 4):
            raise MergeError("not a Pagefind 1.5 index chunk")
        for _ in range(n):
            word, at = _read_word(data, at)
            words.append(word)
    if at != len(data):
        raise MergeError("bytes after the last word of a chunk")
    words.sort(key=lambda w: w[0])
    return Part(version=version, pages=pages, meta_fields=meta_fields, words=words, data=data)


def _read_word(data: bytes, at: int) -> tuple[list, int]:
    major, n, at = _uint(data, at)
    if (major, n) != (4, 3):
        raise MergeError("not a Pagefind 1.5 word")
    word, at = _decode(data, at)
    pages, locations, at = _read_pages(data, at)
    major, n, at = _uint(data, at)
    variants = []
    for _ in range(n):
        major, two, at = _uint(data, at)
        if (major, two) != (4, 2):
            raise MergeError("not a Pagefind 1.5 variant of a word")
        form, at = _decode(data, at)
        variant, _, at = _read_pages(data, at)
        variants.append([form, variant])
    return [word, pages, locations, variants], at


def _read_pages(data: bytes, at: int) -> tuple[Pages, int, int]:
    """A list of pages: (Pages, its number of locations as Pagefind counts them for chunks, next offset)."""
    major, n, at = _uint(data, at)
    if major != 4:
        raise MergeError("a list of pages that is not an array")
    first = total = locations = 0
    tail_from = at
    for i in range(n):
        major, three, at = _uint(data, at)
        if (major, three) != (4, 3):
            raise MergeError("not a Pagefind 1.5 page of a word")
        major, delta, at = _uint(data, at)
        if i == 0:
            first, tail_from = delta, at
        total += delta
        locs, at = _skip_ints(data, at)
        meta_locs, at = _skip_ints(data, at)
        locations += locs + meta_locs + 1
    return (n, first, total, tail_from, at), locations, at


# ------------------------------------------------------------------------------------------ the merge


@dataclass
class Merged:
    """The merged index's files: the metadata and each chunk by its hash (CBOR without the signature)."""

    meta: bytes
    meta_hash: str
    chunks: dict[str, bytes]
    page_count: int


def merge(parts: list[Part], language: str, fragment_names: list[list[str]] | None = None) -> Merged:
    """One index of every page of `parts`, in their order. `fragment_names`: per part, the names its pages'
    fragments have in the merged index (when two parts' hashes collide); by default their own."""
    if not parts:
        raise MergeError("nothing to merge")
    version = parts[0].version
    if any(part.version != version for part in parts):
        raise MergeError("parts of different Pagefind versions")
    pages: list[list] = []
    offsets = []
    for n, part in enumerate(parts):
        offsets.append(len(pages))
        names = fragment_names[n] if fragment_names else [p[0] for p in part.pages]
        pages.extend([name, page[1]] for name, page in zip(names, part.pages, strict=True))
    chunks: list[list[bytes]] = []
    bounds: list[list[str]] = []
    chunk: list[bytes] = []
    size = 0
    for word, locations, encoded in _merged_words(parts, offsets):  # Pagefind's chunk_index
        if not chunk:
            bounds.append([word, word])
        chunk.append(encoded)
        bounds[-1][1] = word
        size += locations
        if size >= CHUNK_SIZE:
            chunks.append(chunk)
            chunk, size = [], 0
    if chunk:
        chunks.append(chunk)
    _shorten_bounds(bounds)
    files: dict[str, bytes] = {}
    for words, bound in zip(chunks, bounds, strict=True):
        data = b"\x81" + _head(4, len(words)) + b"".join(words)
        bound.append(_short_hash(language, data, 7, files))
        files[bound[2]] = data
    meta_fields = sorted({f for part in parts for f in part.meta_fields})
    meta = encode([version, pages, bounds, [], [], meta_fields])
    return Merged(meta=meta, meta_hash=_short_hash(language, meta, 10, {}), chunks=files, page_count=len(pages))


def _merged_words(parts: list[Part], offsets: list[int]) -> Iterator[tuple[str, int, bytes]]:
    """Every word of the parts in order: (word, its locations, its CBOR with the parts' lists joined)."""
    by_word: dict[str, list[tuple[int, bytes, list]]] = {}
    for offset, part in zip(offsets, parts, strict=True):  # in the parts' order: each word's lists in page order
        for entry in part.words:
            by_word.setdefault(entry[0], []).append((offset, part.data, entry))
    for word in sorted(by_word):  # as Rust sorts strings: by code point, as UTF-8 bytes sort
        entries = by_word[word]
        pages = _join([(offset, data, entry[1]) for offset, data, entry in entries])
        forms: dict[str, list[tuple[int, bytes, Pages]]] = {}
        for offset, data, entry in entries:
            for form, variant in entry[3]:
                forms.setdefault(form, []).append((offset, data, variant))
        variants = [b"\x82" + encode(form) + _join(lists) for form, lists in sorted(forms.items())]
        encoded = b"\x83" + encode(word) + pages + _head(4, len(variants)) + b"".join(variants)
        yield word, sum(entry[2] for _, _, entry in entries), encoded


def _join(lists: list[tuple[int, bytes, Pages]]) -> bytes:
    """Lists of pages, each moved up by its part's offset, as one list: only each first delta is new."""
    out = [_head(4, sum(pages[0] for _, _, pages in lists))]
    last = 0
    for offset, data, (n, first, total, start, end) in lists:
        if n == 0:
            continue
        out.append(b"\x83" + _head(0, first + offset - last) + data[start:end])
        last = offset + total
    return b"".join(out)


def _shorten_bounds(bounds: list[list[str]]) -> None:
    """Pagefind's chunk_meta: each chunk's first and last word, cut to the prefixes that tell it from its
    neighbours (the browser loads the chunks whose bounds hold the term)."""
    for left, right in itertools.pairwise(bounds):
        a_prefix, b_prefix = _prefixes(left[1], right[0])
        if a_prefix >= left[0]:
            left[1] = a_prefix
        right[0] = b_prefix


def _prefixes(a: str, b: str) -> tuple[str, str]:
    common = 0
    for x, y in zip(b, a, strict=False):
        if x != y:
            break
        common += 1
    return a[: common + 1], b[: common + 1]


def _short_hash(language: str, data: bytes, length: int, taken: dict) -> str:
    """Pagefind's file names: the language, then the start of the SHA-1, longer until it names nothing else."""
    full = hashlib.sha1(data, usedforsecurity=False).hexdigest()
    while True:
        name = f"{language}_{full[:length]}"
        if name not in taken or length >= len(full):
            return name
        length += 1
