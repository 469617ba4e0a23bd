"""Shared fixtures."""

from __future__ import annotations

import pytest

import rankkit


@pytest.fixture
def con():
    """A fresh in-memory connection with the macros loaded."""
    return rankkit.connect()
