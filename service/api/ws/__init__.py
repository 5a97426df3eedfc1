"""WebSocket `GET /api/tables/{id}/ws` (docs/API.md "WebSocket"): auth frame, resume by
version, live events in the caller's projection, actions over the socket.

- `session`  the protocol of one socket: auth, `ready`, resume, actions, pings, presence
- `writer`   the socket's bounded back-pressure writer the table's feed pushes events into
- `gates`    admission control for a reconnect storm: set-ups and tear-downs a few at a time
"""

from service.api.ws.gates import GATES, Gates
from service.api.ws.session import close_all, table_socket

__all__ = ["GATES", "Gates", "close_all", "table_socket"]
