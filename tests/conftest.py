"""Shared test setup: a private table cache, so tests never touch (or depend on) the user's."""

import os
import tempfile

import pytest

_CACHE = tempfile.mkdtemp(prefix="koma-test-cache-")
os.environ.setdefault("KOMA_CACHE_DIR", _CACHE)
os.environ.setdefault("KOMA_DATA_DIR", tempfile.mkdtemp(prefix="koma-test-data-"))


@pytest.fixture(scope="session")
def table_cache_dir():
    return os.environ["KOMA_CACHE_DIR"]
