"""The test suites' shared support code: clocks, service factories, waiting on a condition,
the `svara serve` process, the HTTP player, Redis servers, the fake Bot API, the browser and
the Telegram harness. Test modules import helpers from here (or their own folder's helper
modules), never from another test module or a conftest.py (tests/test_test_layout.py)."""
