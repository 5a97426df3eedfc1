"""gc_paused (the benchmark's replay fast path pauses the collector): nests, restores the
collector, and leaves a disabled collector disabled."""

from __future__ import annotations

import gc

import pytest

from tests.support.gcpause import gc_paused


def test_pauses_nest_and_restore() -> None:
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer pause still holds
    assert gc.isenabled()


def test_restores_after_an_exception() -> None:
    with pytest.raises(RuntimeError), gc_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_never_enables_a_collector_someone_else_disabled() -> None:
    gc.disable()
    try:
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
