"""What `GET /api/me` answers: the player, their wallet and their profile's choices."""

from __future__ import annotations

from service.game import wallet
from service.game.profile import Profile, effective_language
from service.tables.facade import JSON, User


def me_answer(
    user: User, state: wallet.WalletState, profile: Profile, *, daily_topup: int, now: float
) -> JSON:
    return {
        "user": {"id": user.id, "name": user.name},
        "balance": state.balance,
        "tables": state.tables,
        "language": effective_language(profile, user.language_code),
        "settings": {"language": profile.language, "pings": profile.pings},
        "can_ping": profile.reachable,  # may the bot write to them (else the app may ask)
        # granted when the wallet is empty and its owner seated nowhere
        # (docs/ARCHITECTURE.md, "Tables service")
        "daily_topup": {"amount": daily_topup, "next_at": wallet.next_topup_at(state, now)},
    }
