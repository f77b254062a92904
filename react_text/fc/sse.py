"""A chat completion as OpenAI's ``chat.completion.chunk`` objects, for ``stream: true``."""

from __future__ import annotations

import threading
import time
import uuid
from types import TracebackType
from typing import Any, Callable, Mapping

__all__ = ["KEEP_ALIVE", "ChunkStream", "Heartbeat"]

KEEP_ALIVE = b": keep-alive\n\n"
"""An SSE comment: clients skip it, but it resets their read timeout."""


class Heartbeat:
    """Calls ``beat`` every ``interval`` seconds from its own thread while the ``with`` block runs.

    A model turn can take longer than a client waits for the next byte; the
    beats keep the connection visibly alive. A beat that fails (the client
    left) ends the beats; the block's own writes will meet the same error.
    """

    def __init__(self, interval: float, beat: Callable[[], None]) -> None:
        if interval <= 0:
            raise ValueError("the keep-alive interval must be > 0")
        self.interval = interval
        self.beats = 0
        self._beat = beat
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sse-heartbeat", daemon=True)

    def __enter__(self) -> "Heartbeat":
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self._beat()
            except OSError:
                return
            self.beats += 1


class ChunkStream:
    """One streamed chat completion, as ``chat.completion.chunk`` objects handed to ``send``.

    The role chunk goes first, sent with the first piece of the reply (not
    before: until then a failure can still be a plain HTTP error). ``content``
    is fed live; ``finish`` sends whatever the finished reply adds: the rest of
    the content, or the tool calls, the finish reason and the usage.
    """

    def __init__(self, model: str, send: Callable[[dict[str, Any]], None], include_usage: bool = False) -> None:
        self.id = "chatcmpl-" + uuid.uuid4().hex[:24]
        self.created = int(time.time())
        self.model = model
        self.started = False
        self.content_sent = ""
        self._send = send
        self._include_usage = include_usage

    def _chunk(self, delta: dict[str, Any], finish: str | None = None) -> None:
        if not self.started:  # OpenAI opens a text reply with content "" and a tool-call reply with null
            self.started = True
            self._chunk({"role": "assistant", "content": "" if "content" in delta else None})
        self._send({"id": self.id, "object": "chat.completion.chunk", "created": self.created, "model": self.model,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}]})

    def content(self, text: str) -> None:
        if text:
            self._chunk({"content": text})
            self.content_sent += text

    def finish(self, response: Mapping[str, Any]) -> None:
        choice = response["choices"][0]
        message = choice["message"]
        for index, call in enumerate(message.get("tool_calls") or ()):
            function = call["function"]
            self._chunk({"tool_calls": [{"index": index, "id": call["id"], "type": call.get("type", "function"),
                                         "function": {"name": function["name"], "arguments": ""}}]})
            self._chunk({"tool_calls": [{"index": index, "function": {"arguments": function["arguments"]}}]})
        content = message.get("content") or ""
        if content.startswith(self.content_sent):  # otherwise the parse moved under the stream: keep what went out
            self.content(content[len(self.content_sent):])
        self._chunk({}, choice["finish_reason"])
        if self._include_usage:
            self._send({"id": self.id, "object": "chat.completion.chunk", "created": self.created,
                        "model": self.model, "choices": [], "usage": response["usage"]})
