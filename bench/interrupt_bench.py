"""How long Ctrl-C takes to stop llama.cpp in the middle of a long prompt, with and without the abort callback.

    flock /tmp/llama.lock python bench/interrupt_bench.py [--model qwen2.5-coder-0.5b] [--after 1.0]

A SIGINT is sent ``--after`` seconds into a completion of a ~3,500-token prompt (7 batches of 512); the
delay is the time from the signal to the ``KeyboardInterrupt``. "without" removes the Ctrl-C watch and the
abort callback, which is how it was before: Python only sees the signal once the current batch's decode returns.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import threading
import time

from react_text.backends.llama_cpp import LlamaCppBackend


def delay(backend: LlamaCppBackend, prompt: str, after: float) -> float:
    sent: list[float] = []

    def send() -> None:
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(after, send)
    timer.start()
    try:
        backend.complete(prompt, max_tokens=32)
    except KeyboardInterrupt:
        return time.perf_counter() - sent[0]
    finally:
        timer.cancel()
    raise SystemExit("the completion finished before the signal: use a smaller --after")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="qwen2.5-coder-0.5b")
    parser.add_argument("--after", type=float, default=1.0)
    args = parser.parse_args()
    backend = LlamaCppBackend(args.model, n_ctx=4096)
    prompt = "One two three four five six seven eight nine ten. " * 270
    with_abort = delay(backend, prompt + "A", args.after)
    # "without": no watch and no callback at all, as before (a Python callback left installed would run
    # the signal handler inside llama.cpp's graph walk, which is not how it was)
    watch, ctx = backend._interrupt.watching, backend._llm._ctx.ctx
    backend._interrupt.watching = contextlib.nullcontext  # type: ignore[method-assign]
    backend._lib.llama_set_abort_callback(ctx, backend._lib.ggml_abort_callback(0), None)
    without = delay(backend, prompt + "B", args.after)
    backend._lib.llama_set_abort_callback(ctx, backend._interrupt._callback, None)
    backend._interrupt.watching = watch  # type: ignore[method-assign]
    print(f"Ctrl-C to KeyboardInterrupt, {args.model}, n_batch {backend.n_batch}: "
          f"with the abort callback {with_abort:.2f} s, without {without:.2f} s")


if __name__ == "__main__":
    main()
