"""Fixtures of the fairness proofs: the service fixtures, on the real Redis."""

from __future__ import annotations

from tests.service.conftest import clock, embedded, services

__all__ = ["clock", "embedded", "services"]
