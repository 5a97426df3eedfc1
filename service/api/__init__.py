"""The HTTP/WebSocket adapter (docs/API.md): `make_app(config, tables=None)`, `svara serve`.

Modules, one idea each: `config` (environment → Config), `auth` (initData HMAC, dev signer),
`errors` (the error format; the middleware that keeps client mistakes out of 500),
`schemas` (msgspec request bodies and socket frames), `ratelimit` (per-user token bucket),
`routes` (REST), `ws` (the socket: session, writer, gates), `openapi` (the served
document), `app`, `serve`.

Choices the contract leaves open (docs/API.md "WebSocket", "Errors"):
- A socket action frame cannot carry the action's own `type` (the frame's `type` is
  "action"), so it is `{"type": "action", "action": "<type>", "action_id", "amount"?,
  "expected_version"?}` or `{"type": "action", "action": {<the POST body>}}`.
- Socket error frames also carry `"status"` (the HTTP status the same refusal gets).
- Close codes: 4401 auth, 4404 unknown table, 4408 too slow (reconnect and resume),
  4429 rate limited (connecting costs one token of the user's bucket), 1011 store
  unreachable, 1001 server shutting down. `{"type": "ping"}` is answered with `{"type": "pong"}`.
- POST /api/tables refuses unknown fields (a misspelt option is a 400, not silently ignored)
  and takes `practice_bots` (0-9) besides the table settings.
- `auth_date` may be up to 60 s in the future (clock skew); older than AUTH_MAX_AGE is 401
  `expired_init_data`, everything else wrong is 401 `invalid_init_data` / `missing_init_data`.
"""
