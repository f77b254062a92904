"""Reading a completion server's replies: the JSON of llama-server's ``/completion`` or OpenAI's ``/v1/completions``.

A reply that is not the shape we expect fails with the URL and a snippet of
what came back, never with a KeyError. Streamed replies (Server-Sent Events)
are read event by event and put back together in the non-streaming shape, so
one reader turns both into a ``Completion``.
"""

from __future__ import annotations

import json
from typing import Any

from ..types import Completion
from .base import BackendError
from .stops import StopCutter, cut_at_stop


def snippet(text: str, limit: int = 200) -> str:
    """``text`` on one line, cut to ``limit`` characters, for error messages."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."


def decode_json(raw: bytes, what: str) -> Any:
    """``raw`` as JSON; anything else (nesting too deep for the parser included) is a ``BackendError``."""
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        text = raw[:400].decode("utf-8", errors="replace")
        raise BackendError(f"{what} is not JSON: {snippet(text)}") from None


def int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class ReplyReader:
    """Turns one API's replies (``api`` is ``"llama"`` or ``"openai"``) from ``url`` into completions."""

    def __init__(self, api: str, url: str) -> None:
        self.api = api
        self.url = url

    def read(self, data: Any, stop: list[str]) -> Completion:
        """The completion in a whole reply, cut at the first stop string."""
        if not isinstance(data, dict):
            raise self.malformed(data, "a JSON object")
        return self._read_llama(data, stop) if self.api == "llama" else self._read_openai(data, stop)

    def malformed(self, data: Any, wanted: str) -> BackendError:
        return BackendError(f"POST {self.url}: HTTP 200 but the reply has no {wanted}: {snippet(json.dumps(data))}")

    # -- streams -------------------------------------------------------------------

    def stream_event(self, payload: bytes) -> dict[str, Any]:
        """One ``data:`` line of a stream as a JSON object; an error event fails the completion."""
        event = decode_json(payload, f"POST {self.url}: a streamed event")
        if not isinstance(event, dict):
            raise self.malformed(event, "JSON object in its stream")
        if isinstance(event.get("error"), (dict, str)):
            raise BackendError(f"POST {self.url}: the server reported an error mid-stream: {snippet(json.dumps(event))}")
        return event

    def stream_piece(self, event: dict[str, Any], finish: Any) -> tuple[str, Any]:
        """The text one streamed event adds, and the finish reason so far."""
        if self.api == "llama":
            piece = event.get("content", "")
            if not isinstance(piece, str):
                raise self.malformed(event, "'content' string in its stream")
            return piece, finish
        choices = event.get("choices")
        if not isinstance(choices, list):
            raise self.malformed(event, "'choices' list in its stream")
        if not choices:  # a usage-only event
            return "", finish
        if not isinstance(choices[0], dict) or not isinstance(choices[0].get("text", ""), str):
            raise self.malformed(event, "'choices[0].text' string in its stream")
        return choices[0].get("text") or "", choices[0].get("finish_reason") or finish

    def streamed_reply(self, last: dict[str, Any], cutter: StopCutter, finish: Any) -> dict[str, Any]:
        """A finished stream in the shape of the non-streaming reply: the text read and the last event's counts."""
        if self.api == "llama":
            reply = {k: v for k, v in last.items() if k != "content"}
            if cutter.stopped:
                reply.pop("stop_type", None)
                reply.pop("stopped_limit", None)
            return {**reply, "content": cutter.text}
        return {"choices": [{"text": cutter.text, "finish_reason": finish}],
                **({"usage": last["usage"]} if isinstance(last.get("usage"), dict) else {})}

    # -- whole replies -------------------------------------------------------------

    def _read_openai(self, data: dict[str, Any], stop: list[str]) -> Completion:
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise self.malformed(data, "'choices' list")
        text = choices[0].get("text")
        if not isinstance(text, str):
            raise self.malformed(data, "'choices[0].text' string")
        text, cut = cut_at_stop(text, stop)
        finish = "stop" if cut else ("length" if choices[0].get("finish_reason") == "length" else "stop")
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        prompt_tokens = int_or_none(usage.get("prompt_tokens")) or 0
        evaluated = None
        details = usage.get("prompt_tokens_details")
        cached = int_or_none(details.get("cached_tokens")) if isinstance(details, dict) else None
        if cached is not None:
            evaluated = prompt_tokens - cached
        extra: dict[str, Any] = {}
        timings = data.get("timings")
        if isinstance(timings, dict):  # llama-server adds these to its OpenAI replies too
            evaluated = int_or_none(timings.get("prompt_n"))
            extra.update(_timing_extra(timings))
        return Completion(
            text=text,
            prompt_tokens=prompt_tokens,
            completion_tokens=int_or_none(usage.get("completion_tokens")) or 0,
            evaluated_tokens=evaluated,
            finish_reason=finish,
            extra=extra,
        )

    def _read_llama(self, data: dict[str, Any], stop: list[str]) -> Completion:
        text = data.get("content")
        if not isinstance(text, str):
            raise self.malformed(data, "'content' string")
        text, cut = cut_at_stop(text, stop)
        limited = data.get("stop_type") == "limit" or data.get("stopped_limit") is True
        prompt_tokens = int_or_none(data.get("tokens_evaluated")) or 0
        timings = data.get("timings") if isinstance(data.get("timings"), dict) else {}
        evaluated = int_or_none(timings.get("prompt_n"))
        cached = int_or_none(data.get("tokens_cached"))
        if evaluated is None and cached is not None:
            evaluated = prompt_tokens - cached
        return Completion(
            text=text,
            prompt_tokens=prompt_tokens,
            completion_tokens=int_or_none(data.get("tokens_predicted")) or 0,
            evaluated_tokens=evaluated,
            finish_reason="length" if limited and not cut else "stop",
            extra=_timing_extra(timings),
        )


def _timing_extra(timings: dict[str, Any]) -> dict[str, float]:
    extra: dict[str, float] = {}
    prompt_ms, eval_ms = timings.get("prompt_ms"), timings.get("predicted_ms")
    if isinstance(prompt_ms, (int, float)):
        extra["prompt_eval_ms"] = float(prompt_ms)
    if isinstance(eval_ms, (int, float)):
        extra["eval_ms"] = float(eval_ms)
    if extra:
        extra["model_seconds"] = sum(extra.values()) / 1000.0
    return extra
