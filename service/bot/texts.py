"""Everything the bot says, in one place (our own words; RULES.md is the authority)."""

from __future__ import annotations

GREETING = (
    "Welcome to Svara, the Bulgarian three-card game.\n\n"
    "Tap Play to open the table lobby: you get play chips to start with, "
    "can join a table or open your own, and practise against bots."
)
GREETING_NO_APP = (
    "Welcome to Svara, the Bulgarian three-card game.\n\n"
    "The web app address is not configured on this server yet, so there is no Play button."
)
TABLE_INVITE = "You are invited to Svara table {table_id}. Tap the button to take a seat."
TABLE_GONE = "Table {table_id} does not exist (any more). Open the lobby to find another one."
PLAY_BUTTON = "Play Svara"
OPEN_TABLE_BUTTON = "Open table"
JOIN_TABLE_BUTTON = "Join the table"

NEWTABLE_PRIVATE = (
    "Use /newtable in a group to open a table for its members. "
    "Here, tap Play and create a table in the lobby."
)
NEWTABLE_USAGE = "Usage: /newtable [ante] [seats], e.g. /newtable 10 6 (seats 2-10)."
NEWTABLE_CREATED = (
    "{name} opened a Svara table: ante {ante}, {seats} seats.\n"
    "Tap the button to sit down (the bot opens the table for you in a private chat)."
)
NEWTABLE_FAILED = "Could not create the table: {reason}"
SORRY = "Something went wrong on our side. Please try again in a moment."

HELP = (
    "Svara bot commands:\n"
    "/start — open the game (Play button)\n"
    "/newtable [ante] [seats] — in a group: open a table for the group\n"
    "/rules — how Svara is played\n"
    "/help — this list\n\n"
    "Everything else happens in the web app: sit down with a buy-in, bet, look at your cards."
)

RULES = (
    "Svara in short\n\n"
    "Cards: 32 of them, 7 up to ace. A 7, 8 or 9 counts its number, ten and the pictures count "
    "10, an ace 11. The seven of clubs is the joker and also counts 11.\n\n"
    "Your hand is three cards; it scores its best combination:\n"
    "• three sevens: 34, the top hand\n"
    "• three of a kind: three times the card (three aces 33)\n"
    "• joker with a pair: 11 plus the pair\n"
    "• two aces: 22 · two sevens: 23\n"
    "• joker with two suited cards: 11 plus both; joker with anything else: 11 plus the best "
    "other card\n"
    "• otherwise the total of your best suit (one card alone counts too)\n\n"
    "A hand: everyone pays the ante and gets three face-down cards. Before looking, players "
    "may bet blind, each blind twice the one before. Then, in turn, you call the current bet, "
    "raise it (at most three raises each) or fold; there is no checking. The last player "
    "standing takes the pot; otherwise the best score wins at showdown.\n\n"
    "A tie is a svara: the pot stays, the tied players replay for it for free, and everyone "
    "else may buy in for a share of the pot.\n\n"
    "Every deck is fixed and committed to before dealing and revealed afterwards, so any hand "
    "can be checked."
)
