"""Wallet events: one stream per user (`wallet:<user_id>`), the user's play-money ledger.

Chips move between a wallet and a table in two steps (docs/ARCHITECTURE.md "Tables service",
"Wallets"): the wallet reserves a buy-in, the table seats the player with the reservation's
`transfer_id`, then the wallet marks the reservation completed (or releases it if the table
refused). Leaving is the mirror image: the wallet records the intent, the table stands the
player up with the stack, the wallet credits it. Every step is keyed by `transfer_id`, so
replaying or retrying one is harmless. Past-tense names; explicit tags; new fields must get
defaults so old events still decode.
"""

from __future__ import annotations

from typing import Literal

import msgspec

GrantReason = Literal["start", "daily_topup", "practice"]


class WalletEvent(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of every wallet event (`type` is the tag)."""


class ChipsGranted(WalletEvent, frozen=True, kw_only=True, tag="chips_granted"):
    """New chips enter the game: the starting grant, a daily top-up, or a practice bot's float."""

    amount: int
    reason: GrantReason
    day: int  # days since the epoch (UTC) when granted; limits top-ups to one a day


class BuyInReserved(WalletEvent, frozen=True, kw_only=True, tag="buy_in_reserved"):
    """Chips set aside for a seat; they leave the balance now and reach the table on seating."""

    transfer_id: str
    table_id: str
    amount: int
    expires_at: float  # the seating step is not attempted after this; the reconciler may release


class ReservationReleased(WalletEvent, frozen=True, kw_only=True, tag="reservation_released"):
    """The table never seated this reservation: its chips are back in the balance."""

    transfer_id: str
    reason: str


class BuyInCompleted(WalletEvent, frozen=True, kw_only=True, tag="buy_in_completed"):
    """The table seated the player with this reservation: the chips are now the table's."""

    transfer_id: str


class CashOutRequested(WalletEvent, frozen=True, kw_only=True, tag="cash_out_requested"):
    """Write-ahead record of a leave, so a crash before the credit is found and finished."""

    transfer_id: str
    table_id: str
    requested_at: float


class CashedOut(WalletEvent, frozen=True, kw_only=True, tag="cashed_out"):
    """The table stood the player up with `amount` chips; they are back in the balance."""

    transfer_id: str
    table_id: str
    amount: int


class CashOutCancelled(WalletEvent, frozen=True, kw_only=True, tag="cash_out_cancelled"):
    """The table refused the leave (e.g. not seated): nothing moved."""

    transfer_id: str
    reason: str


AnyWalletEvent = (
    ChipsGranted
    | BuyInReserved
    | ReservationReleased
    | BuyInCompleted
    | CashOutRequested
    | CashedOut
    | CashOutCancelled
)

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(AnyWalletEvent)


def encode_wallet_event(event: AnyWalletEvent) -> bytes:
    return _encoder.encode(event)


def decode_wallet_event(data: bytes) -> AnyWalletEvent:
    """Decode stored bytes; raises msgspec.DecodeError on bytes that are not a wallet event."""
    return _decoder.decode(data)
