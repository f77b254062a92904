"""A model behind HTTP: llama.cpp's ``llama-server`` or any OpenAI-compatible ``/v1/completions``.

Plain text completion only (no chat endpoint): the text protocol needs the
scratchpad to continue exactly where it stopped. Transient failures (refused
connection, timeout, HTTP 5xx and 429) are retried with exponential backoff; a
4xx or a reply that is not the JSON we expect fails at once with the URL and
status. Each attempt has a total deadline and a reply size cap, so a server
that trickles or floods cannot hold a run for ever or fill the memory.

With ``on_token`` the request asks for the server's streaming mode
(``stream: true``; both APIs answer with Server-Sent Events ``data:`` lines)
and passes text on as it arrives, held back where a stop string may start.
Only the opening of a stream is retried: once text has gone to the caller, a
broken stream is an error.
"""

from __future__ import annotations

import json
import time
from typing import Any, Callable, Sequence

from ..types import Completion
from .base import BackendError
from .stops import StopCutter, cut_at_stop

OPENAI_MAX_STOP = 4
"""OpenAI-style servers may reject more than four stop strings; the rest are cut client-side."""

_APIS = ("openai", "llama")
_MAX_STREAM_BYTES = 64 * 1024 * 1024
"""A streamed reply larger than this is not a completion we asked for."""

MAX_REPLY_BYTES = 32 * 1024 * 1024
"""Largest reply read: a completion is text, a bigger reply is a broken or hostile server."""

MAX_RETRY_AFTER_S = 30.0
"""Longest ``Retry-After`` honoured between attempts."""


def _snippet(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class HttpBackend:
    """Completions from a server; ``api="llama"`` for llama-server's ``/completion``, ``"openai"`` otherwise.

    ``chat_template`` (Jinja text, as found in a GGUF) makes ``wrap_prompt``
    put the prompt in one user turn; without it the prompt goes as is, since a
    remote endpoint does not tell us its model's template.
    """

    supports_grammar = True
    supports_streaming = True

    def __init__(
        self,
        base_url: str,
        *,
        api: str = "openai",
        model: str | None = None,
        api_key: str | None = None,
        timeout: float = 60,
        retries: int = 2,
        backoff: float = 0.5,
        chat_template: str | None = None,
        max_reply_bytes: int = MAX_REPLY_BYTES,
    ) -> None:
        import requests

        if api not in _APIS:
            raise ValueError(f"api must be one of {', '.join(_APIS)}, not {api!r}")
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https://, not {base_url!r}")
        if retries < 0 or timeout <= 0 or backoff < 0:
            raise ValueError("retries and backoff must be >= 0 and timeout > 0")
        base = base_url.rstrip("/")
        if api == "openai" and base.endswith("/v1"):
            base = base[: -len("/v1")]
        self.base_url = base
        self.api = api
        self.model = model
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.chat_template = chat_template
        self.max_reply_bytes = max_reply_bytes
        self.url = f"{base}/v1/completions" if api == "openai" else f"{base}/completion"
        self.name = f"http:{api}:{base}"
        self._requests = requests
        self._session = requests.Session()
        if api_key:
            self._session.headers["Authorization"] = f"Bearer {api_key}"

    def wrap_prompt(self, prompt: str) -> str:
        if not self.chat_template:
            return prompt
        from .chat_template import render_chat_template

        try:
            return render_chat_template(self.chat_template, prompt, bos_token="", eos_token="")
        except Exception as exc:  # jinja2 errors of every kind, from a template we did not write
            raise BackendError(f"the chat template failed to render ({exc})") from exc

    def complete(
        self,
        prompt: str,
        *,
        stop: Sequence[str] = (),
        max_tokens: int = 256,
        temperature: float = 0.0,
        seed: int = 0,
        grammar: str | None = None,
        on_token: Callable[[str], None] | None = None,
    ) -> Completion:
        if max_tokens < 1:
            raise BackendError(f"max_tokens must be at least 1, not {max_tokens}")
        stop = [s for s in stop if s]
        body = self._body(prompt, stop, max_tokens, temperature, seed, grammar)
        started = time.perf_counter()
        if on_token is not None:
            data, attempts = self._post_streaming({**body, "stream": True}, StopCutter(stop, on_token))
        else:
            data, attempts = self._post(body)
        completion = self._read(data, stop)
        return Completion(
            text=completion.text,
            prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens,
            evaluated_tokens=completion.evaluated_tokens,
            finish_reason=completion.finish_reason,
            seconds=time.perf_counter() - started,
            extra={**completion.extra, "attempts": attempts},
        )

    def close(self) -> None:
        self._session.close()

    # -- context window --------------------------------------------------------------

    @property
    def context_size(self) -> int | None:
        """The server's context window per request, if set or if the server says (llama-server's ``/props``).

        Asked once; None when the server does not tell (an OpenAI endpoint):
        then set it (``backend.context_size = 4096``) to have long runs counted.
        """
        if not hasattr(self, "_context_size"):
            self._context_size = self._ask_context_size()
        return self._context_size

    @context_size.setter
    def context_size(self, value: int | None) -> None:
        self._context_size = value

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` by the server's own ``/tokenize`` (llama-server, vLLM); an estimate without it."""
        from .base import estimate_tokens

        if getattr(self, "_tokenize_works", True):
            body = {"content": text, "add_special": False} if self.api == "llama" else {"prompt": text}
            try:
                response = self._session.post(f"{self.base_url}/tokenize", json=body, timeout=self.timeout)
                data = response.json() if response.status_code == 200 else None
            except (self._requests.RequestException, ValueError):
                data = None
            if isinstance(data, dict):
                count = _int_or_none(data.get("count"))
                tokens = data.get("tokens")
                if count is None and isinstance(tokens, list):
                    count = len(tokens)
                if count is not None:
                    return count
            self._tokenize_works = False
        return estimate_tokens(text)

    def _ask_context_size(self) -> int | None:
        try:
            response = self._session.get(f"{self.base_url}/props", timeout=self.timeout)
            data = response.json() if response.status_code == 200 else None
        except (self._requests.RequestException, ValueError):
            return None
        if not isinstance(data, dict):
            return None
        settings = data.get("default_generation_settings")
        n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else None
        n_ctx = _int_or_none(n_ctx) or _int_or_none(data.get("n_ctx"))
        return n_ctx if n_ctx and n_ctx > 0 else None

    # -- request -------------------------------------------------------------------

    def _body(
        self, prompt: str, stop: list[str], max_tokens: int, temperature: float, seed: int, grammar: str | None
    ) -> dict[str, Any]:
        if self.api == "llama":
            body: dict[str, Any] = {
                "prompt": prompt,
                "n_predict": max_tokens,
                "stop": stop,
                "temperature": temperature,
                "seed": seed,
                "cache_prompt": True,
            }
        else:
            body = {
                "prompt": prompt,
                "max_tokens": max_tokens,
                "stop": stop[:OPENAI_MAX_STOP],
                "temperature": temperature,
                "seed": seed,
            }
            if self.model:
                body["model"] = self.model
        if grammar is not None:
            body["grammar"] = grammar
        return body

    def _post(self, body: dict[str, Any]) -> tuple[Any, int]:
        """POST with retries; returns the decoded JSON and how many attempts it took."""
        requests = self._requests
        last: BackendError | None = None
        attempts = self.retries + 1
        for attempt in range(1, attempts + 1):
            wait = self.backoff * 2 ** (attempt - 1)
            try:
                status, raw, retry_after = self._exchange(body)
            except requests.RequestException as exc:
                last = self._transport_error(exc)
                if not last.retryable:
                    raise last from exc
            else:
                text = raw.decode("utf-8", errors="replace")
                if status >= 500 or status == 429:
                    last = BackendError(f"POST {self.url}: HTTP {status} from the server: {_snippet(text)}",
                                        retryable=True)
                    wait = max(wait, min(retry_after or 0.0, MAX_RETRY_AFTER_S))
                elif status >= 400:
                    raise BackendError(f"POST {self.url}: HTTP {status}, request rejected: {_snippet(text)}")
                else:
                    try:
                        return json.loads(raw), attempt
                    except (ValueError, RecursionError):
                        raise BackendError(
                            f"POST {self.url}: HTTP {status} but the reply is not JSON: {_snippet(text)}"
                        ) from None
            if attempt < attempts:
                time.sleep(wait)
        assert last is not None
        raise BackendError(f"{last} (gave up after {attempts} attempts)", retryable=True)

    # -- streaming -----------------------------------------------------------------

    def _open_stream(self, body: dict[str, Any]) -> tuple[Any, int]:
        """POST asking for a stream; retried (like ``_post``) until the server answers 200."""
        requests = self._requests
        attempts = self.retries + 1
        last: BackendError | None = None
        for attempt in range(1, attempts + 1):
            try:
                response = self._session.post(self.url, json=body, timeout=self.timeout, stream=True)
            except requests.RequestException as exc:
                last = self._transport_error(exc)
                if not last.retryable:
                    raise last from exc
            else:
                if response.status_code < 400:
                    return response, attempt
                status, text = response.status_code, response.text
                response.close()
                if status < 500:
                    raise BackendError(f"POST {self.url}: HTTP {status}, request rejected: {_snippet(text)}")
                last = BackendError(f"POST {self.url}: HTTP {status} from the server: {_snippet(text)}",
                                    retryable=True)
            if attempt < attempts:
                time.sleep(self.backoff * 2 ** (attempt - 1))
        assert last is not None
        raise BackendError(f"{last} (gave up after {attempts} attempts)", retryable=True)

    def _post_streaming(self, body: dict[str, Any], cutter: StopCutter) -> tuple[dict[str, Any], int]:
        """Read a stream into ``cutter``; returns a reply shaped like the non-streaming one.

        Reading stops (and the connection closes, which ends generation on
        llama.cpp's servers) as soon as a stop string appears.
        """
        response, attempts = self._open_stream(body)
        last: dict[str, Any] = {}
        finish: Any = None
        size = 0
        try:
            for line in response.iter_lines(chunk_size=128):
                size += len(line)
                if size > _MAX_STREAM_BYTES:
                    raise BackendError(f"POST {self.url}: the streamed reply passed {_MAX_STREAM_BYTES} bytes")
                if not line.startswith(b"data:"):
                    continue  # blank separators, comments, "event:" lines
                payload = line[5:].strip()
                if payload == b"[DONE]":
                    break
                event = self._stream_event(payload)
                piece, finish = self._stream_piece(event, finish)
                last = event
                if cutter.feed(piece):
                    finish = "stop"
                    break
                if event.get("stop") is True:  # llama-server's last event
                    break
        except self._requests.RequestException as exc:
            raise BackendError(f"POST {self.url}: the stream broke off ({_snippet(str(exc), 160)})",
                               retryable=True) from exc
        finally:
            response.close()
        cutter.close()
        if self.api == "llama":
            reply = {k: v for k, v in last.items() if k != "content"}
            if cutter.stopped:
                reply.pop("stop_type", None)
                reply.pop("stopped_limit", None)
            return {**reply, "content": cutter.text}, attempts
        return {"choices": [{"text": cutter.text, "finish_reason": finish}],
                **({"usage": last["usage"]} if isinstance(last.get("usage"), dict) else {})}, attempts

    def _stream_event(self, payload: bytes) -> dict[str, Any]:
        try:
            event = json.loads(payload.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise BackendError(
                f"POST {self.url}: a streamed event is not JSON: {_snippet(payload.decode('utf-8', 'replace'))}"
            ) from None
        if not isinstance(event, dict):
            raise self._malformed(event, "JSON object in its stream")
        if isinstance(event.get("error"), (dict, str)):
            raise BackendError(f"POST {self.url}: the server reported an error mid-stream: {_snippet(json.dumps(event))}")
        return event

    def _stream_piece(self, event: dict[str, Any], finish: Any) -> tuple[str, Any]:
        """The text one streamed event adds, and the finish reason so far."""
        if self.api == "llama":
            piece = event.get("content", "")
            if not isinstance(piece, str):
                raise self._malformed(event, "'content' string in its stream")
            return piece, finish
        choices = event.get("choices")
        if not isinstance(choices, list):
            raise self._malformed(event, "'choices' list in its stream")
        if not choices:  # a usage-only event
            return "", finish
        if not isinstance(choices[0], dict) or not isinstance(choices[0].get("text", ""), str):
            raise self._malformed(event, "'choices[0].text' string in its stream")
        return choices[0].get("text") or "", choices[0].get("finish_reason") or finish
    def _exchange(self, body: dict[str, Any]) -> tuple[int, bytes, float | None]:
        """One POST: status, the reply body and any ``Retry-After`` seconds, within the deadline and size cap.

        ``timeout`` bounds each socket wait and the whole exchange: a server that
        trickles a byte now and then would otherwise never time out. The reply
        is read in pieces and abandoned past ``max_reply_bytes``.
        """
        deadline = time.monotonic() + self.timeout
        with self._session.post(self.url, json=body, timeout=self.timeout, stream=True) as response:
            declared = response.headers.get("Content-Length", "")
            if declared.isdigit() and int(declared) > self.max_reply_bytes:
                raise self._oversized(int(declared))
            raw = response.raw
            read1 = getattr(raw, "read1", None)  # returns what has arrived instead of waiting for a full block
            pieces: list[bytes] = []
            size = 0
            while True:
                if time.monotonic() > deadline:
                    raise self._requests.Timeout(f"the reply took longer than {self.timeout}s")
                try:
                    piece = (read1 or raw.read)(65536, decode_content=True)
                except Exception as exc:  # urllib3 errors wrapped the way requests does
                    raise _as_requests_error(self._requests, exc) from exc
                if not piece:
                    break
                size += len(piece)
                if size > self.max_reply_bytes:
                    raise self._oversized(size)
                pieces.append(piece)
            return response.status_code, b"".join(pieces), _seconds(response.headers.get("Retry-After"))

    def _transport_error(self, exc: Exception) -> BackendError:
        """A failed request as an error: a timeout or a refused connection is worth retrying."""
        requests = self._requests
        if isinstance(exc, requests.Timeout):
            return BackendError(f"POST {self.url}: no answer within {self.timeout}s", retryable=True)
        if isinstance(exc, requests.ConnectionError):
            return BackendError(f"POST {self.url}: cannot connect ({_reason(exc)})", retryable=True)
        return BackendError(f"POST {self.url}: request failed ({exc})")

    def _oversized(self, size: int) -> BackendError:
        return BackendError(f"POST {self.url}: the reply is over {self.max_reply_bytes} bytes ({size}); "
                            "refusing to read more")

    # -- reply ---------------------------------------------------------------------

    def _read(self, data: Any, stop: list[str]) -> Completion:
        if not isinstance(data, dict):
            raise self._malformed(data, "a JSON object")
        return self._read_llama(data, stop) if self.api == "llama" else self._read_openai(data, stop)

    def _malformed(self, data: Any, wanted: str) -> BackendError:
        return BackendError(f"POST {self.url}: HTTP 200 but the reply has no {wanted}: {_snippet(json.dumps(data))}")

    def _read_openai(self, data: dict[str, Any], stop: list[str]) -> Completion:
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise self._malformed(data, "'choices' list")
        text = choices[0].get("text")
        if not isinstance(text, str):
            raise self._malformed(data, "'choices[0].text' string")
        text, cut = cut_at_stop(text, stop)
        finish = "stop" if cut else ("length" if choices[0].get("finish_reason") == "length" else "stop")
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        prompt_tokens = _int_or_none(usage.get("prompt_tokens")) or 0
        evaluated = None
        details = usage.get("prompt_tokens_details")
        cached = _int_or_none(details.get("cached_tokens")) if isinstance(details, dict) else None
        if cached is not None:
            evaluated = prompt_tokens - cached
        extra: dict[str, Any] = {}
        timings = data.get("timings")
        if isinstance(timings, dict):  # llama-server adds these to its OpenAI replies too
            evaluated = _int_or_none(timings.get("prompt_n"))
            extra.update(_timing_extra(timings))
        return Completion(
            text=text,
            prompt_tokens=prompt_tokens,
            completion_tokens=_int_or_none(usage.get("completion_tokens")) or 0,
            evaluated_tokens=evaluated,
            finish_reason=finish,
            extra=extra,
        )

    def _read_llama(self, data: dict[str, Any], stop: list[str]) -> Completion:
        text = data.get("content")
        if not isinstance(text, str):
            raise self._malformed(data, "'content' string")
        text, cut = cut_at_stop(text, stop)
        limited = data.get("stop_type") == "limit" or data.get("stopped_limit") is True
        prompt_tokens = _int_or_none(data.get("tokens_evaluated")) or 0
        timings = data.get("timings") if isinstance(data.get("timings"), dict) else {}
        evaluated = _int_or_none(timings.get("prompt_n"))
        cached = _int_or_none(data.get("tokens_cached"))
        if evaluated is None and cached is not None:
            evaluated = prompt_tokens - cached
        return Completion(
            text=text,
            prompt_tokens=prompt_tokens,
            completion_tokens=_int_or_none(data.get("tokens_predicted")) or 0,
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


def _seconds(value: str | None) -> float | None:
    try:
        return float(value) if value else None
    except ValueError:
        return None  # an HTTP date: fall back to our own backoff


def _as_requests_error(requests: Any, exc: Exception) -> Exception:
    """A read failure inside the body as the requests exception it stands for."""
    import urllib3.exceptions as u3

    if isinstance(exc, (u3.ReadTimeoutError, TimeoutError)):
        return requests.Timeout(str(exc))
    if isinstance(exc, (u3.ProtocolError, u3.HTTPError, OSError)):
        return requests.ConnectionError(str(exc))
    return exc


def _reason(exc: Exception) -> str:
    text = str(exc)
    if "Connection refused" in text or "ECONNREFUSED" in text:
        return "connection refused: is the server running?"
    return _snippet(text, 160)
