"""Shared fixtures for the refmodels tests."""

from __future__ import annotations

import numpy as np
import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: long-running oracle or BER test (still run in CI)")


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20260522)
