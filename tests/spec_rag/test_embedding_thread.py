"""The packaged MiniLM runs on one thread of its own, whichever thread asks.

torch's OpenMP thread team belongs to the thread that enters it: a server that embedded its
queries on the event loop's worker threads started a spinning team per worker, and under load a
one-line query took a second. Every call must reach the model on the one embedding thread.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest

from silicon_agent.servers.spec_rag.embedders import LocalMiniLM
from silicon_agent.suite.embedding import packaged_minilm


@pytest.fixture
def callers() -> Iterator[list[str]]:
    """The names of the threads that called the model's encode."""
    model = packaged_minilm()
    original = model.encode
    names: list[str] = []

    def recording(*args: Any, **kwargs: Any) -> Any:
        names.append(threading.current_thread().name)
        return original(*args, **kwargs)

    model.encode = recording
    try:
        yield names
    finally:
        model.encode = original


def test_every_call_reaches_the_model_on_one_thread(callers: list[str]) -> None:
    embedder = LocalMiniLM()
    alone = embedder.embed(["turbo code internal interleaver"])
    with ThreadPoolExecutor(4) as pool:
        rows = list(
            pool.map(lambda _: embedder.embed(["turbo code internal interleaver"]), range(8))
        )
    assert all(np.allclose(r, alone, atol=1e-5) for r in rows)
    assert len(callers) == 9 and len(set(callers)) == 1
    assert callers[0] != threading.current_thread().name


def test_passages_are_read_from_their_first_word_pieces() -> None:
    embedder = LocalMiniLM(passage_tokens=16)
    head = "sub-block interleaver of the turbo coded transport channels " * 3
    tail = " ".join(["quokka"] * 200)
    short, long = embedder.embed_passages([head, head + tail])
    assert np.allclose(short, long, atol=1e-4)  # the tail is past the passage limit
    whole = embedder.embed([head + tail])[0]
    assert not np.allclose(whole, long, atol=1e-2)  # a query is read whole
    assert packaged_minilm().max_seq_length == 256  # the limit is per call, then restored
