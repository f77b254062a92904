"""Hostile completion servers on 127.0.0.1 (issue 26): how long each holds the client, what it costs.

Each case starts its own loopback server and times the HTTP backend (or the
live console, or compare) against it: wall seconds for the deadlines, CPU
seconds for the readers, the Python allocation peak for the capped side read.
No model is loaded.

    python bench/hostile_http_bench.py
"""

from __future__ import annotations

import io
import sys
import tempfile
import threading
import time
import tracemalloc
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable, Iterator

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from react_text.backends.base import BackendError  # noqa: E402
from react_text.backends.fake_server import FakeCompletionServer  # noqa: E402
from react_text.backends.http import HttpBackend  # noqa: E402
from react_text.backends.stops import StopCutter  # noqa: E402
from react_text.cli.console import Console  # noqa: E402
from react_text.eval.compare import run_compare  # noqa: E402
from react_text.eval.planning import CompareSpec  # noqa: E402

SSE_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
CHUNK = b"x" * 65536


@contextmanager
def serving(reply: Callable[[BaseHTTPRequestHandler], None]) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            try:
                reply(self)
            except OSError:
                pass  # the client left

        do_GET = do_POST  # noqa: N815

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def trickle(head: bytes, each: bytes, every_s: float, times: int) -> Callable[[BaseHTTPRequestHandler], None]:
    def reply(handler: BaseHTTPRequestHandler) -> None:
        handler.wfile.write(head)
        for _ in range(times):
            handler.wfile.flush()
            time.sleep(every_s)
            handler.wfile.write(each)
    return reply


def timed(call: Callable[[], object]) -> tuple[float, float, str]:
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        outcome = repr(call())[:60]
    except BackendError as exc:
        outcome = f"BackendError: {str(exc)[:60]}"
    return time.perf_counter() - wall, time.process_time() - cpu, outcome


def row(name: str, wall: float, cpu: float, outcome: str) -> None:
    print(f"{name:<52} {wall:7.2f} s wall {cpu:7.2f} s cpu  {outcome}")


def main() -> None:
    stream = {"on_token": lambda text: None}
    with serving(trickle(b"HTTP/1.1 200 OK\r\n", b"X", 0.5, 240)) as url:
        row("headers trickle 1 B / 0.5 s, timeout=2, retries=0",
            *timed(lambda: HttpBackend(url, api="llama", timeout=2, retries=0).complete("x")))
    with serving(trickle(SSE_HEAD, b'data: {"content": "a"}\n\n', 1.5, 40)) as url:
        row("stream trickle 1 event / 1.5 s, timeout=2",
            *timed(lambda: HttpBackend(url, api="llama", timeout=2, retries=0).complete("x", **stream)))
    with serving(lambda h: h.wfile.write(SSE_HEAD + b'data: {"content": "' + b"x" * 4 * 1024 * 1024)) as url:
        row("stream: one 4 MB line, no newline",
            *timed(lambda: HttpBackend(url, api="llama", retries=0).complete("x", **stream)))
    with serving(trickle(SSE_HEAD + b'data: {"content": "', CHUNK, 0, 4000)) as url:
        row("stream: endless line (256 MB offered), default budget",
            *timed(lambda: HttpBackend(url, api="llama", retries=0).complete("x", **stream)))

    def console() -> int:
        live = Console(io.StringIO(), colour=False, live=True)
        live({"event": "prompt", "n": 1})
        turn = "word " * 80_000  # 400 kB on one line
        for i in range(0, len(turn), 4):
            live.token(turn[i:i + 4])
        return len(turn)
    row("live console: 400 kB turn in 4-char tokens", *timed(console))

    def cutter() -> int:
        cut = StopCutter(["\nObservation:", "\nQuestion:"], lambda text: None)
        for _ in range(400_000):
            cut.feed("abc\n")
        return len(cut.text)
    row("StopCutter: 400 000 pieces of 4 chars", *timed(cutter))

    def flood(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.end_headers()
        handler.wfile.write(b'{"n_ctx": 4096, "x": "')
        for _ in range(300 * 16):  # 300 MB
            handler.wfile.write(CHUNK)
    with serving(flood) as url:
        tracemalloc.start()
        wall, cpu, outcome = timed(lambda: HttpBackend(url, api="llama", retries=0).context_size)
        peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
        row(f"/props reply of 300 MB (peak Python alloc {peak:.1f} MB)", wall, cpu, outcome)

    def compare_with(bad_reply: Callable[[BaseHTTPRequestHandler], None], limit: int, timeout_s: float) -> str:
        with serving(bad_reply) as bad, FakeCompletionServer(latency_s=0.05, slots=1) as good, \
                tempfile.TemporaryDirectory() as out:
            spec = CompareSpec(templates=("classic",), models=("fake",), suite="arithmetic", out_dir=Path(out),
                               backend="http", urls=(bad, good.url), api="llama", concurrency=1, limit=limit,
                               max_steps=3, timeout_s=timeout_s)
            records = run_compare(spec, progress_stream=io.StringIO())
            statuses = [r["status"] for r in records]
            return f"{len(records)} recorded, {statuses.count('answered')} answered"

    def rejecting(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(400)
        handler.send_header("Content-Length", "2")
        handler.end_headers()
        handler.wfile.write(b"{}")
    row("compare 12 tasks: fail-fast 400 server + healthy", *timed(lambda: compare_with(rejecting, 12, 60)))
    row("compare --timeout 20, 6 tasks: trickling + healthy",
        *timed(lambda: compare_with(trickle(b"HTTP/1.1 200 OK\r\n", b"X", 0.5, 1000), 6, 20)))


if __name__ == "__main__":
    main()
