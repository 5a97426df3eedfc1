"""One router per feature. Each module has `make_router()`: a fresh Router per dispatcher,
since aiogram lets a router belong to one parent only (tests build several dispatchers)."""
