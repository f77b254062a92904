"""A model behind HTTP: llama.cpp's ``llama-server`` or any OpenAI-compatible ``/v1/completions``.

Plain text completion only (no chat endpoint): the text protocol needs the
scratchpad to continue exactly where it stopped. Transient failures (refused
connection, timeout, HTTP 5xx and 429) are retried with exponential backoff; a
4xx or a reply that is not the JSON we expect fails at once with the URL and
status. Each attempt has one deadline (connect, headers, body; streams too) and
a reply size cap, so a server that trickles or floods cannot hold a run for
ever or fill the memory. The side reads (``/props``, ``/tokenize``) are capped
too, and a reply we cannot read there only means "unknown".

With ``on_token`` the request asks for the server's streaming mode
(``stream: true``; both APIs answer with Server-Sent Events ``data:`` lines)
and passes text on as it arrives, held back where a stop string may start.
Only the opening of a stream is retried: once text has gone to the caller, a
broken stream is an error.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Sequence
from urllib.parse import unquote, urlsplit

from ..http_deadline import watched_session
from ..redaction import safe_url
from ..types import Completion
from .base import BackendError, estimate_tokens
from .chat_template import render_chat_template
from .http_replies import ReplyReader, int_or_none
from .http_transport import Transport
from .stops import StopCutter

OPENAI_MAX_STOP = 4
"""OpenAI-style servers may reject more than four stop strings; the rest are cut client-side."""

_APIS = ("openai", "llama")

MAX_REPLY_BYTES = 32 * 1024 * 1024
"""Largest reply read, streamed or not: a completion is text, a bigger reply is a broken or hostile server."""

MAX_SIDE_REPLY_BYTES = 4 * 1024 * 1024
"""Largest ``/props`` or ``/tokenize`` reply read: their facts fit in far less."""

SIDE_TIMEOUT_S = 10.0
"""Longest a ``/props`` or ``/tokenize`` request may take (or ``timeout`` if shorter): a server answers them at once."""


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
        import requests  # optional: only an HTTP backend needs it

        if api not in _APIS:
            raise ValueError(f"api must be one of {', '.join(_APIS)}, not {api!r}")
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https://, not {safe_url(base_url)!r}")
        if retries < 0 or timeout <= 0 or backoff < 0:
            raise ValueError("retries and backoff must be >= 0 and timeout > 0")
        parts = urlsplit(base_url)
        user, password = parts.username, parts.password
        base = safe_url(base_url).rstrip("/")  # the password goes in a header, never in a name or message
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
        self._session = watched_session(requests)
        if api_key:
            self._session.headers["Authorization"] = f"Bearer {api_key}"
        elif user is not None:
            self._session.auth = (unquote(user), unquote(password or ""))
        self._transport = Transport(requests, self._session, self.url, timeout=timeout, retries=retries,
                                    backoff=backoff, max_reply_bytes=max_reply_bytes)
        self._replies = ReplyReader(api, self.url)

    def wrap_prompt(self, prompt: str) -> str:
        if not self.chat_template:
            return prompt
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
            data, attempts = self._transport.post(body)
        completion = self._replies.read(data, stop)
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
        if getattr(self, "_tokenize_works", True):
            body = {"content": text, "add_special": False} if self.api == "llama" else {"prompt": text}
            try:
                data = self._side_read("POST", "/tokenize", body)
            except BackendError:
                data = None
            if isinstance(data, dict):
                count = int_or_none(data.get("count"))
                tokens = data.get("tokens")
                if count is None and isinstance(tokens, list):
                    count = len(tokens)
                if count is not None:
                    return count
            self._tokenize_works = False
        return estimate_tokens(text)

    def _ask_context_size(self) -> int | None:
        try:
            data = self._side_read("GET", "/props", None)
        except BackendError:
            return None
        if not isinstance(data, dict):
            return None
        settings = data.get("default_generation_settings")
        n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else None
        n_ctx = int_or_none(n_ctx) or int_or_none(data.get("n_ctx"))
        return n_ctx if n_ctx and n_ctx > 0 else None

    def _side_read(self, method: str, path: str, body: dict[str, Any] | None) -> Any:
        return self._transport.side_read(method, f"{self.base_url}{path}", body, max_bytes=MAX_SIDE_REPLY_BYTES,
                                         timeout=min(self.timeout, SIDE_TIMEOUT_S))

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

    # -- streaming -----------------------------------------------------------------

    def _post_streaming(self, body: dict[str, Any], cutter: StopCutter) -> tuple[dict[str, Any], int]:
        """Read a stream into ``cutter``; returns a reply shaped like the non-streaming one.

        Reading stops (and the connection closes, which ends generation on
        llama.cpp's servers) as soon as a stop string appears.
        """
        last: dict[str, Any] = {}
        finish: Any = None
        with self._transport.open_stream(body) as stream:
            for line in stream.lines():
                if not line.startswith(b"data:"):
                    continue  # blank separators, comments, "event:" lines
                payload = line[5:].strip()
                if payload == b"[DONE]":
                    break
                event = self._replies.stream_event(payload)
                piece, finish = self._replies.stream_piece(event, finish)
                last = event
                if cutter.feed(piece):
                    finish = "stop"
                    break
                if event.get("stop") is True:  # llama-server's last event
                    break
        cutter.close()
        return self._replies.streamed_reply(last, cutter, finish), stream.attempts
