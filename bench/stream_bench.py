"""How long a ``stream: true`` client waits in silence behind ``serve`` while a slow model writes.

A fake backend writes one plain answer in pieces, ``--pause`` seconds apart,
so the turn takes ``pieces x pause`` seconds; the server runs on loopback with
``keepalive_s=--keepalive``. Measured at the client over raw HTTP: the time to
the first byte of the reply, the longest silence between two bytes, the time
to the first content delta and to the end, for the default checks (an "auto"
answer is held until the checks accept it) and ``checks=none`` (it streams).

    python bench/stream_bench.py [--pieces 10] [--pause 0.5] [--keepalive 1.0]
"""

from __future__ import annotations

import argparse
import http.client
import json
import threading
import time
from typing import Any

from react_text.backends.scripted import ScriptedBackend
from react_text.checks import parse_checks
from react_text.fc.endpoint import ServerConfig
from react_text.fc.server import make_server
from react_text.types import Completion

TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "Current weather for a city.",
          "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]


class SlowBackend(ScriptedBackend):
    """Writes its turn in ``pieces`` parts, ``pause`` seconds apart."""

    supports_streaming = True

    def __init__(self, text: str, pieces: int, pause: float) -> None:
        super().__init__([text])
        self.pieces, self.pause = pieces, pause

    def complete(self, prompt: str, **options: Any) -> Completion:
        on_token = options.pop("on_token", None)
        whole = super().complete(prompt, **options)
        size = -(-len(whole.text) // self.pieces)
        for i in range(0, len(whole.text), size):
            time.sleep(self.pause)
            if on_token is not None:
                on_token(whole.text[i:i + size])
        return whole


def measure(pieces: int, pause: float, keepalive: float, checks: str) -> dict[str, float]:
    answer = " I know this.\nFinal Answer: " + " ".join(f"word{i}" for i in range(40)) + "."
    config = ServerConfig(model_name="bench", keepalive_s=keepalive, checks=parse_checks(checks))
    server = make_server(SlowBackend(answer, pieces, pause), config, host="127.0.0.1", port=0)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=120)
        body = json.dumps({"model": "bench", "messages": [{"role": "user", "content": "Weather in Paris?"}],
                           "tools": TOOLS, "stream": True})
        start = time.monotonic()
        connection.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
        response = connection.getresponse()
        last = first_byte = first_content = None
        silence = 0.0
        for line in iter(response.fp.readline, b""):
            now = time.monotonic() - start
            first_byte = now if first_byte is None else first_byte
            silence = max(silence, now - (last if last is not None else 0.0))
            last = now
            if first_content is None and line.startswith(b"data: {") and b'"content": "' in line \
                    and b'"content": ""' not in line:
                first_content = now
        connection.close()
    finally:
        server.shutdown()
        server.server_close()
    return {"first_byte": first_byte or 0.0, "longest_silence": silence, "first_content": first_content or 0.0,
            "end": last or 0.0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pieces", type=int, default=10)
    parser.add_argument("--pause", type=float, default=0.5)
    parser.add_argument("--keepalive", type=float, default=1.0)
    args = parser.parse_args()
    print(f"turn: {args.pieces} pieces x {args.pause:g} s = {args.pieces * args.pause:g} s; "
          f"keep-alive every {args.keepalive:g} s")
    print(f"{'checks':<8} {'first byte':>11} {'longest silence':>16} {'first content':>14} {'end':>7}")
    for checks in ("all", "none"):
        m = measure(args.pieces, args.pause, args.keepalive, checks)
        print(f"{checks:<8} {m['first_byte']:>10.2f}s {m['longest_silence']:>15.2f}s "
              f"{m['first_content']:>13.2f}s {m['end']:>6.2f}s")


if __name__ == "__main__":
    main()
