"""What one step of the hand replayer (js/replay.js) costs on the main thread, in Debian's
headless Chromium with the CPU slowed down 4 times (CDP Emulation.setCPUThrottlingRate), as on
a cheap phone:

    python3 bench/bench_replayer.py [--rate 4] [--rounds 5] [--pace MS] [--pin] [--no-trace]

The hand: the svara of docs/verifier-corpus (40 events, several deals), its table's stored log
written into the embedded store, its replay and export answered by the service itself. The page
loads the app's own stylesheets and modules and mounts the replayer with that hand's replay
and export (the answers of GET .../replay and .../export); then, for every step of the hand,
both modes, `rounds` times over: performance.now() around `show(step)` plus a forced layout
(the felt drawn, the list and the bar updated, style and layout done), p50 / p99 / max in ms,
of every step and of each step's best round (what the step costs when no other process
takes the CPU from it: the figure for a shared machine), and the main thread's CPU time of
each step from a trace (its thread clock; with `--rate 1` the step's own work, which 4x
throttling stretches four times).
Not a test: it measures (about 15 s).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from aiohttp import web
from playwright.async_api import async_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.browser import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.support.replayer_hand import svara_hand  # noqa: E402

STATIC = ROOT / "service" / "api" / "static"
PAGE = """<!doctype html><html lang="en" dir="ltr"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="css/base.css"><link rel="stylesheet" href="css/table.css">
<link rel="stylesheet" href="css/panels.css"><link rel="stylesheet" href="css/replay.css">
</head><body><main id="screen"></main></body></html>"""

STEPS_JS = """async ([replay, exported, rounds, pace]) => {
  const { setLanguage } = await import('/js/i18n.js');
  await setLanguage('en');
  const { ReplayScreen } = await import('/js/replay.js');
  const app = { setTitle() {}, openAudit() {},
    api: { replay: async () => replay, exportHand: async () => exported } };
  const screen = new ReplayScreen(app, replay.table_id, replay.hand);
  await screen.mount(document.getElementById('screen'));
  const n = screen.steps.length;
  const times = [];
  const scripts = [];
  for (let r = 0; r < rounds; r++) {
    for (const mode of ['seen', 'open']) {
      screen.setMode(mode);
      for (let i = 0; i < n; i++) {
        // a task of its own, as a tap; `pace` ms apart, the page idle in between as it is
        // between a player's taps (0: back to back, the page never idle)
        await new Promise((resolve) => setTimeout(resolve, pace));
        console.timeStamp('replay-step');  // the trace's thread clock (tts) here and below
        const start = performance.now();
        screen.show(i);
        const drawn = performance.now();
        void document.body.offsetHeight;  // style and layout, forced now
        times.push(performance.now() - start);
        console.timeStamp('replay-step-end');
        scripts.push(drawn - start);
      }
    }
  }
  screen.unmount();
  return { times, scripts, steps: n, marked: screen.own.marks.filter((m) => m.diffs.length
    || m.failures.length).length, verified: screen.own.verdict?.ok ?? null };
}"""


def step_cpu(trace: dict[str, Any]) -> list[float]:
    """The main thread's own CPU time (ms) of each step: its thread clock (`tts`, the time the
    thread ran, not the time it waited for a CPU: another process's share is not in it, nor
    the throttling's pauses) from the step's stamp to its end stamp."""
    stamps = sorted((e for e in trace["traceEvents"] if e.get("name") == "TimeStamp"
                     and "tts" in e), key=lambda e: e["ts"])
    out, begun = [], None
    for e in stamps:
        message = e.get("args", {}).get("data", {}).get("message")
        if message == "replay-step":
            begun = e["tts"]
        elif message == "replay-step-end" and begun is not None:
            out.append((e["tts"] - begun) / 1000)
            begun = None
    return out


def pin_main_thread() -> None:
    """Every thread of every Chromium process and of this one on CPU 0, the pages' renderer
    main threads (a renderer's main thread id is its process id) on CPU 1. Unpinned, on two
    cores, the browser's compositor, raster and GPU threads (some at a higher priority) and
    the throttling thread itself take the page's core at times: a step then waits, or is
    throttled less than 4 times."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            command = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if command.startswith(b"/usr/lib/chromium/"):
            pids.append((int(entry), b"--type=renderer" in command))
    os.sched_setaffinity(0, {0})
    for pid, _ in pids:
        for task in os.listdir(f"/proc/{pid}/task"):
            os.sched_setaffinity(int(task), {0})
    for pid, renderer in pids:
        if renderer:
            os.sched_setaffinity(pid, {1})


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rate", type=float, default=4.0, help="CPU throttling rate")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--pace", type=float, default=0.0, metavar="MS",
                        help="ms between steps (a player's taps; 0: back to back)")
    parser.add_argument("--pin", action="store_true",
                        help="the page's main thread on a core of its own, every other thread "
                             "of the browser and this process on another (Linux; 2 cores at "
                             "least), as on a phone whose compositor and raster run beside it")
    parser.add_argument("--no-trace", action="store_true",
                        help="no Chromium trace (its own cost stays out of the wall clock; no "
                             "thread-clock figure)")
    parser.add_argument("--trace", type=Path, metavar="FILE",
                        help="also write the Chromium trace (devtools.timeline) here")
    args = parser.parse_args()
    replay, exported, deals = await svara_hand()
    app = web.Application()

    async def page(request: web.Request) -> web.Response:
        return web.Response(text=PAGE, content_type="text/html")

    app.router.add_get("/", page)
    for folder in ("js", "css", "i18n"):
        app.router.add_static(f"/{folder}", STATIC / folder)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = await browser.new_context(viewport={"width": 390, "height": 844})
        tab = await context.new_page()
        await tab.goto(f"http://127.0.0.1:{port}/")
        cdp = await context.new_cdp_session(tab)
        await cdp.send("Emulation.setCPUThrottlingRate", {"rate": args.rate})
        if args.pin:
            pin_main_thread()
        if not args.no_trace:
            await browser.start_tracing(page=tab, categories=["devtools.timeline"])
        found = await tab.evaluate(STEPS_JS, [replay, exported, args.rounds, args.pace])
        trace: dict[str, Any] = {"traceEvents": []}
        if not args.no_trace:
            raw = await browser.stop_tracing()
            trace = json.loads(raw)
            if args.trace is not None:
                args.trace.write_bytes(raw)
        await browser.close()
    await runner.cleanup()
    times = found["times"]
    print(f"hand: {found['steps']} events, {deals} deals, verified={found['verified']}, "
          f"steps marked={found['marked']}")
    print(f"one step (show + forced layout), CPU throttled {args.rate:g}x, {len(times)} steps: "
          f"p50 {percentile(times, 0.5):.2f} ms, p99 {percentile(times, 0.99):.2f} ms, "
          f"max {max(times):.2f} ms")
    scripts = found["scripts"]
    print(f"  of which the script (show, before the forced layout): p50 "
          f"{percentile(scripts, 0.5):.2f} ms, p99 {percentile(scripts, 0.99):.2f} ms")
    # On a shared machine other processes take the CPU in the middle of a step: each step's
    # least time over the rounds is its own cost, without theirs.
    per_step = len(times) // args.rounds
    best = [min(times[r * per_step + i] for r in range(args.rounds)) for i in range(per_step)]
    print(f"each step's best of {args.rounds} rounds ({per_step} steps, both modes): "
          f"p50 {percentile(best, 0.5):.2f} ms, p99 {percentile(best, 0.99):.2f} ms, "
          f"max {max(best):.2f} ms")
    rounds = ", ".join(f"{percentile(times[r * per_step:(r + 1) * per_step], 0.99):.1f}"
                       for r in range(args.rounds))
    print(f"  p99 of each round in turn (the first draws each step's parts): {rounds} ms")
    cpu = step_cpu(trace)
    if cpu:
        # (throttled, the thread clock counts the throttling's own time too: at --rate 1 it is
        # the step's work alone, which the throttling would stretch `rate` times)
        print(f"main-thread CPU time of a step (thread clock, {len(cpu)} steps): "
              f"p50 {percentile(cpu, 0.5):.2f} ms, p99 {percentile(cpu, 0.99):.2f} ms, "
              f"max {max(cpu):.2f} ms")
    worst = sorted(range(per_step), key=lambda i: -best[i])[:3]
    types = [s["event"]["type"] for s in replay["steps"]]
    print("  the dearest steps: " + ", ".join(
        f"{types[i % len(types)]} ({'open' if i >= len(types) else 'seen'}) {best[i]:.1f} ms"
        for i in worst))


if __name__ == "__main__":
    asyncio.run(main())
