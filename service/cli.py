"""The `svara` console script: `svara score ...`, `svara serve ...`, `svara audit ...`,
`svara verify ...`, `svara reindex`, `svara archive ...`."""

from __future__ import annotations

import sys

USAGE = """usage: svara <command> [args]

commands:
  score [CARD CARD CARD]   score a hand (or one hand per line on stdin)
  serve [--host H] [--port P]   run the API, web app and bot
  audit TABLE HAND [--export FILE] [--json]
                           the server's audit of a settled hand (store at REDIS_URL)
  audit --tournament ID [--json]
                           a tournament's standings verified from its own events
  verify FILE [--pin VERSION:HASH]... [--commitment HAND:DEAL:COMMITMENT]...
                           check an exported hand offline (no server, no Redis)
  reindex [--stats]        rebuild the table indexes (or the player stats and
                           leaderboards) from the streams (REDIS_URL)
  archive [--closed-days N] [--to DIR] [--dry-run]
                           move tables closed N days ago (30) from Redis to files
"""


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in {"-h", "--help", "help"}:
        print(USAGE, end="")
        return 0 if args else 2
    command, rest = args[0], args[1:]
    if command == "score":
        from service.game.score_cli import main as score_main

        return score_main(rest)
    if command == "serve":
        from service.api.serve import main as serve_main

        status: int = serve_main(rest)
        return status
    if command == "audit":
        from service.audit_cli import main as audit_main

        return audit_main(rest)
    if command == "verify":
        from service.verify import main as verify_main

        return verify_main(rest)
    if command == "reindex":
        from service.api.reindex import main as reindex_main

        return reindex_main(rest)
    if command == "archive":
        from service.archive_cli import main as archive_main

        return archive_main(rest)
    print(f"svara: unknown command {command!r}\n{USAGE}", file=sys.stderr, end="")
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
