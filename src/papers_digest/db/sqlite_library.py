"""sqlite-utils for every module of the database, imported without pandas and numpy where nothing has imported them.

sqlite-utils imports pandas and numpy when they are installed, only to map their scalar types to column types.
That is 0.3 to 0.5 s of every stage process that opens the database, and nothing in this package writes a pandas
or numpy value. So where neither is imported yet, sqlite-utils is imported with both reading as not installed (a
None in sys.modules), and both stay importable afterwards. A process that imported pandas first, as a notebook
does, gets sqlite-utils as it is. docs/performance.md, "Stage processes and the report, second pass (AMD,
2026-12-06)".
"""

import sys

_OPTIONAL = ("pandas", "numpy")

if "sqlite_utils" not in sys.modules and not any(name in sys.modules for name in _OPTIONAL):
    for _name in _OPTIONAL:
        sys.modules[_name] = None  # type: ignore[assignment]
    try:
        import sqlite_utils
    finally:
        for _name in _OPTIONAL:
            del sys.modules[_name]
else:
    import sqlite_utils

__all__ = ["sqlite_utils"]
