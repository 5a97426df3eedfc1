"""Download tokens (`service.api.downloads`): they open one file of one hand for a while, and
nothing else; a changed character, another secret, hand, table or kind is refused."""

from __future__ import annotations

import pytest

from service.api import downloads
from service.api.errors import ApiError

SECRET = downloads.download_secret("4242:token")


def refused(token: str, kind: str = "export", table: str = "t1", hand: int = 3,
            now: float = 1000.0) -> tuple[int, str]:
    with pytest.raises(ApiError) as e:
        downloads.check(SECRET, token, kind, table, hand, now=now)
    return e.value.status, e.value.code


def test_a_token_opens_its_file_until_it_expires() -> None:
    token = downloads.mint(SECRET, 42, "export", "t1", 3, "ru", now=1000.0)
    grant = downloads.check(SECRET, token, "export", "t1", 3, now=1000.0 + 299)
    assert (grant.user_id, grant.language) == (42, "ru")
    assert refused(token, now=1000.0 + 301) == (401, "download_expired")


def test_anything_else_is_refused() -> None:
    token = downloads.mint(SECRET, 42, "export", "t1", 3, "en", now=1000.0)
    assert refused(token, kind="transcript") == (403, "invalid_download")
    assert refused(token, table="t2") == (403, "invalid_download")
    assert refused(token, hand=4) == (403, "invalid_download")
    other = downloads.mint(downloads.download_secret("other"), 42, "export", "t1", 3, "en",
                           now=1000.0)
    assert refused(other) == (403, "invalid_download")
    user, kind, expires, language, mac = token.split(".")
    assert refused(".".join([str(int(user) + 1), kind, expires, language, mac]))[0] == 403
    assert refused(".".join([user, kind, str(int(expires) + 9999), language, mac]))[0] == 403
    assert refused(".".join([user, kind, expires, "ru", mac]))[0] == 403
    for bad in ("", "x", token + "A", token.replace(".", "-")):
        assert refused(bad) == (403, "invalid_download")
