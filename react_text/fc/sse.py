"""A chat completion as OpenAI's ``chat.completion.chunk`` objects, for ``stream: true``."""

from __future__ import annotations

import time
import uuid
from typing import Any, Callable, Mapping

__all__ = ["ChunkStream"]


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
