"""The application layer: the only place that loads, decides and appends.

- `service`   TableService, the `facade.Tables` the API and the bot use: a façade over
              `actions`, `seats`, `practice`, `reads`, `indexing` and `lifecycle`, whose
              arguments `guards` checks
- `repo`      the one command path: load (cache / snapshot + tail) → decide → append with the
              expected version → on conflict reload and decide again
- `wallet`    the pure wallet decider; `bank` its streams (`wallet:<user>`, grants, top-ups)
- `transfers` buy-in / cash-out as idempotent two-step transfers, and their reconciler
- `driver`    the per-process worker: turn timeouts, svara windows, next hands, idle tables
              closed, practice bots; it asks the wake index what is due
- `index`     the lobby and wake indexes kept beside the streams, written with each append
- `lobby`     the lobby's pages, in the order a player would join a table, and their cursor
- `bots`      the practice bots' identities and strategy (`practice`: seating and funding them)
- `audit`     the audit of a settled hand, recomputed from the stored events
- `directory`, `streams`, `errors`: the old directories (read once, to index a deployment
              that predates the indexes), stream and index names, error mapping
"""
