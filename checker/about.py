"""The installed layoutcheck's own version (reports and `layoutcheck --version` say it)."""

from __future__ import annotations


def version() -> str:
    """The installed package's version (pyproject.toml), or 'unknown' when run from a bare checkout."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed
    try:
        return installed("layoutcheck")
    except PackageNotFoundError:
        return "unknown"
