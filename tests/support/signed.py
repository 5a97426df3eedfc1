"""Signed test users for the in-process API tests: the bot token the test config uses and the
Authorization header of a user signed with it."""

from __future__ import annotations

from service.api.auth import sign_init_data

TOKEN = "4242:api-test-token"


def auth(user_id: int, name: str = "", token: str = TOKEN) -> dict[str, str]:
    init = sign_init_data(token, user_id=user_id, name=name or f"user{user_id}")
    return {"Authorization": f"tma {init}"}
