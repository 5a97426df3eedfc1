"""People at the table driven over the HTTP API (the issue allows the tests to drive the other
players that way), and the page's own user acting without the page when a test needs speed."""

from __future__ import annotations

import uuid
from typing import Any

import aiohttp

JSON = dict[str, Any]


class ApiPlayer:
    """One dev-mode user: signed by the server's /dev/init-data, then the public API."""

    def __init__(self, http: aiohttp.ClientSession, base: str, user_id: int, name: str,
                 init_data: str) -> None:
        self.http = http
        self.base = base
        self.user_id = user_id
        self.name = name
        self.init_data = init_data

    @classmethod
    async def login(cls, http: aiohttp.ClientSession, base: str, user_id: int, name: str,
                    language: str = "") -> ApiPlayer:
        params = {"user_id": str(user_id), "name": name}
        if language:
            params["language"] = language
        async with http.get(f"{base}/dev/init-data", params=params) as resp:
            assert resp.status == 200, await resp.text()
            init_data = str((await resp.json())["init_data"])
        return cls(http, base, user_id, name, init_data)

    async def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        async with self.http.request(method, f"{self.base}{path}", json=body, headers={
                "Authorization": f"tma {self.init_data}"}) as resp:
            return resp.status, await resp.json(content_type=None)

    async def ok(self, method: str, path: str, body: Any = None) -> Any:
        status, data = await self.call(method, path, body)
        assert 200 <= status < 300, (method, path, body, status, data)
        return data

    async def me(self) -> JSON:
        return dict(await self.ok("GET", "/api/me"))

    async def create(self, **settings: Any) -> str:
        data = await self.ok("POST", "/api/tables", settings)
        return str(data["table_id"])

    async def seat(self, table: str, buy_in: int) -> JSON:
        return dict(await self.ok("POST", f"/api/tables/{table}/seat", {"buy_in": buy_in}))

    async def view(self, table: str) -> JSON:
        return dict(await self.ok("GET", f"/api/tables/{table}"))

    async def act(self, table: str, kind: str, amount: int | None = None) -> tuple[int, Any]:
        body: JSON = {"action_id": uuid.uuid4().hex, "type": kind}
        if amount is not None:
            body["amount"] = amount
        return await self.call("POST", f"/api/tables/{table}/actions", body)

    async def events(self, table: str, after: int = 0) -> list[JSON]:
        data = await self.ok("GET", f"/api/tables/{table}/events?after={after}")
        return list(data["events"])


def seat_of(view: JSON, user_id: int) -> JSON | None:
    return next((s for s in view["seats"] if s["user_id"] == user_id), None)


def legal(view: JSON) -> dict[str, JSON]:
    return {a["type"]: a for a in view["you"]["legal"]}
