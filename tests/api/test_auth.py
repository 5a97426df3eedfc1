"""initData validation: the signature, the auth_date window, and nothing else decides the user."""

from __future__ import annotations

import time
from urllib.parse import parse_qsl, urlencode

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.api.auth import AuthError, secret_key, sign_init_data, verify_init_data

TOKEN = "12345:test-token"
KEY = secret_key(TOKEN)


def test_signed_init_data_names_the_user() -> None:
    init = sign_init_data(TOKEN, user_id=42, name="Ana Petrova")
    user = verify_init_data(init, key=KEY, max_age=60)
    assert (user.id, user.name) == (42, "Ana Petrova")


def test_telegram_reference_check_string() -> None:
    """Field order in the string does not matter; the check string is sorted."""
    fields = dict(parse_qsl(sign_init_data(TOKEN, user_id=7, name="x")))
    shuffled = urlencode(dict(reversed(list(fields.items()))))
    assert verify_init_data(shuffled, key=KEY, max_age=60).id == 7


def test_other_token_is_forged() -> None:
    init = sign_init_data("other:token", user_id=42, name="Eve")
    with pytest.raises(AuthError) as err:
        verify_init_data(init, key=KEY, max_age=60)
    assert err.value.code == "invalid_init_data"


def test_changed_user_is_forged() -> None:
    fields = dict(parse_qsl(sign_init_data(TOKEN, user_id=42, name="Ana")))
    fields["user"] = fields["user"].replace("42", "43")
    with pytest.raises(AuthError):
        verify_init_data(urlencode(fields), key=KEY, max_age=60)


def test_expired_and_future_auth_date() -> None:
    now = time.time()
    old = sign_init_data(TOKEN, user_id=1, name="a", auth_date=int(now) - 120)
    with pytest.raises(AuthError) as err:
        verify_init_data(old, key=KEY, max_age=60, now=now)
    assert err.value.code == "expired_init_data"
    assert verify_init_data(old, key=KEY, max_age=600, now=now).id == 1
    future = sign_init_data(TOKEN, user_id=1, name="a", auth_date=int(now) + 3600)
    with pytest.raises(AuthError):
        verify_init_data(future, key=KEY, max_age=86400, now=now)


@pytest.mark.parametrize("init", ["", "garbage", "a=1&a=2", "hash=00", "%%%", "user=&hash="])
def test_garbage_is_refused(init: str) -> None:
    with pytest.raises(AuthError):
        verify_init_data(init, key=KEY, max_age=60)


def test_signed_but_no_user_is_refused() -> None:
    import hashlib
    import hmac

    fields = {"auth_date": str(int(time.time())), "user": "not json"}
    check = "\n".join(f"{k}={fields[k]}" for k in sorted(fields))
    fields["hash"] = hmac.new(KEY, check.encode(), hashlib.sha256).hexdigest()
    with pytest.raises(AuthError) as err:
        verify_init_data(urlencode(fields), key=KEY, max_age=60)
    assert "user" in err.value.message


@given(st.data())
def test_any_single_character_change_is_refused(data: st.DataObject) -> None:
    init = sign_init_data(TOKEN, user_id=99, name="Pat")
    i = data.draw(st.integers(0, len(init) - 1))
    c = data.draw(st.characters(codec="ascii").filter(lambda c: c != init[i]))
    tampered = init[:i] + c + init[i + 1:]
    try:
        user = verify_init_data(tampered, key=KEY, max_age=60)
    except AuthError:
        return
    # The only accepted changes are encodings of the same signed data (e.g. "+" for "%20").
    assert user.id == 99
    assert dict(parse_qsl(tampered)) == dict(parse_qsl(init))
