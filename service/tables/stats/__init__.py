"""Player stats and leaderboards: a projection of the table streams (docs/ARCHITECTURE.md,
"Player stats and leaderboards"). `counters` keeps the figures in Redis and applies a hand
exactly once; `projector` feeds it from the streams; `reads` answers the API and the bot."""
