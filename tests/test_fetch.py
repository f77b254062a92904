"""The fetch tool against a real HTTP server on 127.0.0.1, started here.

Every failure the tool promises a clear observation for is provoked for real:
refused hosts and ports, redirects off the allowlist, oversize bodies (declared
and streamed), a server that never answers, one that drips, non-text content,
HTTP errors.
"""

from __future__ import annotations

import gzip
import shutil
import socket
import ssl
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import quote, unquote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from react_text.backends.scripted import ScriptedBackend
from react_text.cli.main import build_parser
from react_text.cli.run import _run_tools
from react_text.protocol.dialects import format_action, format_final
from react_text.tools import fetch as fetch_module
from react_text.tools.fetch import FetchError, FetchPolicy, fetch, fetch_tool, host_allowed
from react_text.tools.html_text import html_to_text
from react_text.agent.loop import Agent
from react_text.prompting.templates import load_template
from react_text.tools.calling import call_tool

PAGE = """<!doctype html><html><head><title>Varnholt Ferry</title>
<style>body { color: red }</style><script>var secret = "do not show";</script></head>
<body><nav><a href="/">Home</a></nav><h1>Timetable</h1>
<p>The first ferry leaves at <b>06:40</b>.</p><ul><li>Weekdays</li><li>Sundays: no service</li></ul>
<p>See <a href="/fares">the fares page</a> for prices.</p><noscript>enable js</noscript></body></html>"""


class Handler(BaseHTTPRequestHandler):
    requests_seen: list[str] = []

    def log_message(self, *args) -> None:  # quiet
        pass

    def send(self, status: int, body: bytes, content_type: str = "text/plain; charset=utf-8", length: bool = True,
             **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if length:
            self.send_header("Content-Length", str(len(body)))
        for key, value in headers.items():
            self.send_header(key.replace("_", "-"), value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        Handler.requests_seen.append(self.path)
        path = self.path
        port = self.server.server_address[1]
        if path == "/page.html":
            self.send(200, PAGE.encode(), "text/html; charset=utf-8")
        elif path == "/plain.txt":
            self.send(200, "Ferry fare: 4 crowns. Überfahrt".encode("utf-8"), "text/plain")
        elif path == "/data.json":
            self.send(200, b'{"fare": 4}', "application/json")
        elif path == "/big-declared":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(10_000_000))
            self.end_headers()
            self.wfile.write(b"x" * 1000)  # the client must stop on the header alone
        elif path == "/big-streamed":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()  # no length: HTTP/1.0 body until close
            try:
                for _ in range(2000):
                    self.wfile.write(b"y" * 1000)
            except OSError:
                pass  # the client hung up once it had enough: that is the point
        elif path == "/redirect-inside":
            self.send(302, b"", Location="/page.html")
        elif path == "/redirect-outside":
            self.send(302, b"", Location="http://evil.example/steal")
        elif path == "/redirect-other-port":
            self.send(301, b"", Location=f"http://127.0.0.1:{port + 1}/page.html")
        elif path == "/redirect-loop":
            self.send(302, b"", Location="/redirect-loop")
        elif path == "/slow":
            time.sleep(3)
            self.send(200, b"too late")
        elif path == "/drip":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            try:
                for _ in range(60):
                    self.wfile.write(b".")
                    self.wfile.flush()
                    time.sleep(0.1)
            except OSError:
                pass
        elif path == "/image.png":
            self.send(200, b"\x89PNG\r\n\x1a\n\x00\x00", "image/png")
        elif path == "/binary":
            self.send(200, b"\x00\x01\x02binary", "")
        elif path == "/server-error":
            self.send(503, b"down")
        elif path.startswith("/redirect-to?u="):
            self.send(302, b"", Location=unquote(path.partition("=")[2]))
        elif path == "/drip-headers":
            self.wfile.write(b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nX-Slow: ")
            try:
                for _ in range(3000):  # five minutes, a byte at a time
                    self.wfile.write(b"a")
                    time.sleep(0.1)
                self.wfile.write(b"\r\n\r\nlate")
            except OSError:
                pass
        elif path == "/many-headers":
            self.send(200, b"x", **{f"X_{n}": "y" for n in range(150)})
        elif path == "/long-header":
            self.send(200, b"x", X_Long="y" * 1_000_000)
        elif path == "/gzip-page":
            self.send(200, gzip.compress(PAGE.encode()), "text/html", Content_Encoding="gzip")
        elif path == "/gzip-bomb":
            self.send(200, gzip.compress(b" " * 20_000_000), "text/plain", Content_Encoding="gzip")
        else:
            self.send(404, b"no such page")


def serve(handler: type[BaseHTTPRequestHandler]):
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def server():
    yield from serve(Handler)


class Secret(BaseHTTPRequestHandler):
    """A server nobody allowed (an admin panel on loopback): it must never be asked anything."""

    hits: list[str] = []

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        Secret.hits.append(self.path)
        body = b"secret admin page"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def secret():
    yield from serve(Secret)


class FakeDNS:
    """Answers for made-up names, recorded: each lookup takes the next answer (the last one
    repeats), an answer being addresses joined by ','. Every other name, and every IP, goes
    to the real resolver."""

    def __init__(self) -> None:
        self.answers: dict[str, list[str]] = {}
        self.asked: list[str] = []
        self.real = socket.getaddrinfo

    def __call__(self, host, port, *args, **kwargs):
        if host not in self.answers:
            return self.real(host, port, *args, **kwargs)
        self.asked.append(host)
        queue = self.answers[host]
        answer = queue.pop(0) if len(queue) > 1 else queue[0]
        return [info for address in answer.split(",") for info in self.real(address, port, *args, **kwargs)]


@pytest.fixture
def dns(monkeypatch) -> FakeDNS:
    fake = FakeDNS()
    monkeypatch.setattr(socket, "getaddrinfo", fake)
    return fake


def url(server, path: str) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}{path}"


def policy(server, **kwargs) -> FetchPolicy:
    return FetchPolicy(allow=(f"127.0.0.1:{server.server_address[1]}",), **kwargs)


def failure(server, path: str, **kwargs) -> FetchError:
    with pytest.raises(FetchError) as info:
        fetch(url(server, path), policy(server, **kwargs))
    return info.value


# --- what comes back ---------------------------------------------------------------------

def test_html_becomes_readable_text_without_scripts_or_styles(server):
    result = fetch(url(server, "/page.html"), policy(server))
    assert result.status == 200 and result.content_type == "text/html"
    lines = result.text.splitlines()
    assert lines[0] == "Title: Varnholt Ferry"
    assert "# Timetable" in lines and "The first ferry leaves at 06:40 ." not in lines
    assert "The first ferry leaves at 06:40." in lines
    assert "- Weekdays" in lines and "See the fares page for prices." in lines
    assert "secret" not in result.text and "color" not in result.text and "enable js" not in result.text


def test_plain_text_and_json_pass_through_decoded(server):
    assert fetch(url(server, "/plain.txt"), policy(server)).text == "Ferry fare: 4 crowns. Überfahrt"
    assert fetch(url(server, "/data.json"), policy(server)).text == '{"fare": 4}'


def test_a_redirect_inside_the_allowlist_is_followed(server):
    result = fetch(url(server, "/redirect-inside"), policy(server))
    assert result.url.endswith("/page.html") and "06:40" in result.text


# --- every failure, with a message the model can act on ----------------------------------------

def test_nothing_is_allowed_by_default(server):
    with pytest.raises(FetchError) as info:
        fetch(url(server, "/page.html"), FetchPolicy())
    assert info.value.kind == "refused" and "not on the fetch allowlist" in str(info.value)
    assert "none" in str(info.value)


def test_another_host_or_port_is_refused_before_any_request(server):
    before = len(Handler.requests_seen)
    port = server.server_address[1]
    for target in (f"http://localhost:{port}/page.html", f"http://127.0.0.1:{port + 1}/page.html"):
        with pytest.raises(FetchError) as info:
            fetch(target, policy(server))
        assert info.value.kind == "refused"
    assert len(Handler.requests_seen) == before


def test_a_redirect_to_a_refused_host_is_not_followed(server):
    error = failure(server, "/redirect-outside")
    assert error.kind == "refused" and "redirected to evil.example" in str(error)
    assert failure(server, "/redirect-other-port").kind == "refused"


def test_redirect_loops_end(server):
    error = failure(server, "/redirect-loop", max_redirects=3)
    assert error.kind == "too_many_redirects" and "3 redirects" in str(error)


def test_oversize_bodies_are_refused_declared_or_streamed(server):
    declared = failure(server, "/big-declared", max_bytes=50_000)
    streamed = failure(server, "/big-streamed", max_bytes=50_000)
    assert declared.kind == streamed.kind == "too_large"
    assert "50,000 bytes" in str(streamed)


def test_a_server_that_does_not_answer_in_time_is_a_timeout(server):
    error = failure(server, "/slow", timeout_s=0.5)
    assert error.kind == "timeout" and error.retryable and "0.5 seconds" in str(error)


def test_a_dripping_server_cannot_hold_the_read_past_the_deadline(server):
    assert failure(server, "/drip", timeout_s=0.8).kind == "timeout"


def test_non_text_content_is_refused(server):
    image = failure(server, "/image.png")
    assert image.kind == "not_text" and "image/png" in str(image)
    assert failure(server, "/binary").kind == "not_text"


def test_http_errors_say_the_status(server):
    missing = failure(server, "/missing")
    assert missing.kind == "http_error" and "HTTP 404" in str(missing) and not missing.retryable
    assert failure(server, "/server-error").retryable


def test_urls_that_are_not_http_are_refused_plainly():
    for bad in ("ftp://127.0.0.1/x", "file:///etc/passwd", "not a url", ""):
        with pytest.raises(FetchError) as info:
            fetch(bad, FetchPolicy(allow=("127.0.0.1",)))
        assert info.value.kind == "bad_url"


def test_allowlist_matching():
    allow = ["docs.example.org", "*.wiki.example", "127.0.0.1:8123"]
    assert host_allowed("https://docs.example.org/a", allow)
    assert host_allowed("https://DOCS.example.org./a", allow)
    assert not host_allowed("https://evil-docs.example.org/a", allow)
    assert host_allowed("https://en.wiki.example/x", allow) and not host_allowed("https://wiki.example.evil/", allow)
    assert host_allowed("http://127.0.0.1:8123/", allow) and not host_allowed("http://127.0.0.1:8124/", allow)
    assert not host_allowed("http://docs.example.org@evil.example/", allow)  # userinfo is not the host
    with pytest.raises(ValueError):
        FetchPolicy(allow=("https://docs.example.org/",))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_html_to_text_never_raises(markup):
    assert isinstance(html_to_text(markup), str)


# --- as a tool, in the loop, from the CLI ---------------------------------------------------

def test_the_tool_turns_failures_into_error_observations(server):
    port = server.server_address[1]
    fetch_page = fetch_tool([f"127.0.0.1:{port}"], max_bytes=50_000, timeout_s=2)
    ok = call_tool(fetch_page, {"url": url(server, "/plain.txt")})
    assert ok.ok and ok.text.startswith("Ferry fare")
    refused = call_tool(fetch_page, {"url": "http://evil.example/"})
    assert not refused.ok and "Refused: host evil.example" in refused.text
    big = call_tool(fetch_page, {"url": url(server, "/big-streamed")})
    assert not big.ok and "Too large" in big.text
    assert f"127.0.0.1:{port}" in fetch_page.description


def test_an_agent_reads_a_page_and_is_told_about_a_refusal(server):
    port = server.server_address[1]
    turns = [
        f" I will read the page.\n{format_action('classic', 'fetch', {'url': 'http://evil.example/'})}",
        f" That host is refused; the allowed one.\n{format_action('classic', 'fetch', {'url': url(server, '/page.html')})}",
        f" The page says 06:40.\n{format_final('classic', '06:40')}",
    ]
    # the refused host is one the model made up: the grounding check would question it first
    agent = Agent(ScriptedBackend(turns), [fetch_tool([f"127.0.0.1:{port}"])], load_template("classic"),
                  checks="-ungrounded")
    result = agent.run("When does the first Varnholt ferry leave?")
    assert result.status == "answered"
    refused, page = result.steps[0], result.steps[1]
    assert "not on the fetch allowlist" in refused.observation_text
    assert "Title: Varnholt Ferry" in page.observation_text and "secret" not in page.observation_text


def test_run_offers_fetch_only_with_an_allowed_host():
    parser = build_parser()
    names = [t.name for t in _run_tools(parser.parse_args(["run", "q"]))]
    assert "fetch" not in names
    args = parser.parse_args(["run", "q", "--fetch-allow", "127.0.0.1:8080", "--fetch-allow", "docs.example.org"])
    (fetch_page,) = [t for t in _run_tools(args) if t.name == "fetch"]
    assert "127.0.0.1:8080, docs.example.org" in fetch_page.description


# --- hostile URLs, addresses and pages (issue 26) ------------------------------------------

def test_a_backslash_cannot_send_the_request_to_another_host_and_port(secret):
    # urlsplit ends the authority at the last '@' (docs.python.org); an HTTP client that ends it
    # at '\\' connects to 127.0.0.1:<secret>. One parser for both: the URL is refused.
    fetch_page = fetch_tool(["docs.python.org"], timeout_s=2)
    result = call_tool(fetch_page, {"url": f"http://127.0.0.1:{secret.server_address[1]}\\@docs.python.org/3/"})
    assert not result.ok and "secret" not in result.text
    assert Secret.hits == []


@pytest.mark.parametrize("shape", [
    "http://127.0.0.1:{port}\\@docs.python.org/", "http://docs.python.org@127.0.0.1:{port}/",
    "http://u:p@127.0.0.1:{port}/", "http://127.0.0.1:{port} /", "http://127.0.0.1:{port}\t/",
    "http://127.0.0.1\n:{port}/", "http:\\\\127.0.0.1:{port}/", "http://127.0.0.1:{port}\x00/",
    "http://127.0.0.1:{port}/\r\nX-Injected: 1", "http://[127.0.0.1]:{port}/", "http://127.0.0.1:99999/",
])
def test_the_authority_must_be_a_plain_host_and_port(secret, shape):
    url_ = shape.format(port=secret.server_address[1])
    allow = (f"127.0.0.1:{secret.server_address[1]}", "docs.python.org", "127.0.0.1:99999")
    before = len(Secret.hits)
    with pytest.raises(FetchError) as info:
        fetch(url_, FetchPolicy(allow=allow, timeout_s=2))
    assert info.value.kind == "bad_url" and not host_allowed(url_, allow)
    assert len(Secret.hits) == before


def test_a_redirect_through_a_backslash_is_refused(server, secret):
    port = server.server_address[1]
    hop = f"http://127.0.0.1:{secret.server_address[1]}\\@127.0.0.1:{port}/page.html"
    before = len(Secret.hits)
    with pytest.raises(FetchError) as info:
        fetch(url(server, f"/redirect-to?u={quote(hop)}"), policy(server, timeout_s=2))
    assert info.value.kind == "bad_url"
    assert len(Secret.hits) == before


@pytest.mark.parametrize("address", ["127.0.0.1", "127.8.9.10", "10.0.0.1", "192.168.1.20", "169.254.169.254",
                                     "100.64.0.1", "0.0.0.0", "::1", "::ffff:127.0.0.1", "fe80::1", "fc00::1"])
def test_an_allowed_name_that_resolves_to_a_private_address_is_refused_unasked(server, dns, address):
    port = server.server_address[1]
    dns.answers["ferry.test"] = [address]
    before = len(Handler.requests_seen)
    with pytest.raises(FetchError) as info:
        fetch(f"http://ferry.test:{port}/page.html", FetchPolicy(allow=(f"ferry.test:{port}",), timeout_s=1))
    assert info.value.kind == "refused" and f"resolves to {address}" in str(info.value)
    assert len(Handler.requests_seen) == before


def test_one_private_address_among_public_ones_refuses_the_name(server, dns):
    dns.answers["ferry.test"] = ["93.184.216.34,127.0.0.1"]
    before = len(Handler.requests_seen)
    for allow in ("ferry.test", "*.test"):
        with pytest.raises(FetchError) as info:
            fetch("http://ferry.test/", FetchPolicy(allow=(allow,), timeout_s=1))
        assert info.value.kind == "refused" and "127.0.0.1" in str(info.value)
    assert len(Handler.requests_seen) == before


def test_a_listed_ip_or_localhost_or_the_switch_opens_loopback(server, dns):
    port = server.server_address[1]
    assert "06:40" in fetch(url(server, "/page.html"), policy(server)).text  # 127.0.0.1:<port> listed
    assert "06:40" in fetch(f"http://localhost:{port}/page.html", FetchPolicy(allow=(f"localhost:{port}",))).text
    dns.answers["ferry.test"] = ["127.0.0.1"]
    private = FetchPolicy(allow=(f"ferry.test:{port}",), allow_private=True)
    assert "06:40" in fetch(f"http://ferry.test:{port}/page.html", private).text
    with pytest.raises(FetchError):  # a wildcard never matches an IP, so never names one
        fetch(url(server, "/page.html"), FetchPolicy(allow=(f"*.0.0.1:{port}",)))


def test_the_connection_goes_to_the_address_that_was_checked(server, secret, dns):
    # a second lookup would answer the secret server's address: there must not be one
    port = server.server_address[1]
    dns.answers["ferry.test"] = ["127.0.0.1", "127.0.0.2"]
    result = fetch(f"http://ferry.test:{port}/page.html", FetchPolicy(allow=(f"ferry.test:{port}",),
                                                                     allow_private=True))
    assert "06:40" in result.text and result.url == f"http://ferry.test:{port}/page.html"
    assert dns.asked == ["ferry.test"]


def test_every_redirect_hop_is_resolved_and_checked(server, dns):
    port = server.server_address[1]
    dns.answers["ferry.test"] = ["10.1.2.3"]
    hop = f"http://ferry.test:{port}/page.html"
    allow = (f"127.0.0.1:{port}", f"ferry.test:{port}")
    with pytest.raises(FetchError) as info:
        fetch(url(server, f"/redirect-to?u={quote(hop)}"), FetchPolicy(allow=allow, timeout_s=1))
    assert info.value.kind == "refused" and "10.1.2.3" in str(info.value)


def test_run_fetch_private_is_the_switch_for_names_on_private_addresses(server, dns):
    port = server.server_address[1]
    dns.answers["ferry.test"] = ["127.0.0.1"]
    parser = build_parser()
    page = f"http://ferry.test:{port}/plain.txt"
    for extra, ok in (([], False), (["--fetch-private"], True)):
        args = parser.parse_args(["run", "q", "--fetch-allow", f"ferry.test:{port}", *extra])
        (fetch_page,) = [t for t in _run_tools(args) if t.name == "fetch"]
        result = call_tool(fetch_page, {"url": page})
        assert result.ok is ok and ("Ferry fare" in result.text) is ok


def test_headers_dripped_past_the_deadline_are_a_timeout(server):
    # each byte arrives well inside a per-read timeout; only a deadline on the whole fetch ends it.
    # The join's cap is generous (the deadline is 0.8 s); without one the drip lasts five minutes.
    errors: list[FetchError] = []

    def attempt() -> None:
        try:
            fetch(url(server, "/drip-headers"), policy(server, timeout_s=0.8))
        except FetchError as exc:
            errors.append(exc)

    reader = threading.Thread(target=attempt, daemon=True)
    reader.start()
    reader.join(timeout=60)
    assert not reader.is_alive() and [e.kind for e in errors] == ["timeout"]


def test_header_floods_are_refused(server):
    assert failure(server, "/many-headers").kind == "connection"
    assert failure(server, "/long-header").kind == "connection"


def test_gzip_is_read_and_a_gzip_bomb_is_cut_at_the_size_cap(server):
    assert "06:40" in fetch(url(server, "/gzip-page"), policy(server)).text
    assert failure(server, "/gzip-bomb", max_bytes=50_000).kind == "too_large"


def test_html_to_text_is_linear_on_hostile_markup():
    # html.parser re-scans an unclosed tag from every '<': quadratic, hours of CPU for these 1 MB
    # inputs. The cap is generous; a linear reader needs well under a second for all of them.
    shapes = ["'<a ' * 333_334", "'<a href=\"' * 111_112", "'<!--' * 250_000", "'<a =\\'' * 200_000",
              "'<p>x' * 250_000", "'<' * 1_000_000", "'<script>' * 125_000", "'&#' * 500_000"]
    code = ("from react_text.tools.html_text import html_to_text\n"
            + "".join(f"html_to_text({shape})\n" for shape in shapes) + "print('done')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "done", done.stderr[-2000:]


def test_html_to_text_reads_markup_as_a_browser_would():
    assert html_to_text("<p title='a>b'>kept</p><p>1 < 2 &amp; 3</p>") == "kept\n1 < 2 & 3"
    assert html_to_text("<p>it's <a href=x'y>here</a></p>") == "it's here"
    assert html_to_text("<svg/><p>after a self-closed svg</p>") == "after a self-closed svg"
    assert html_to_text("<script>if (a<b) {'</p>'}</script><p>shown</p>") == "shown"
    assert html_to_text("<p>before</p><div class='open") == "before"


@pytest.fixture
def tls_server(tmp_path, dns, monkeypatch):
    """An https server on 127.0.0.1 whose certificate names ferry.test only, trusted by fetch here."""
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command to make a certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=ferry.test",
                    "-addext", "subjectAltName=DNS:ferry.test", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    monkeypatch.setattr(fetch_module, "_tls", lambda: ssl.create_default_context(cafile=str(cert)))
    dns.answers["ferry.test"] = ["127.0.0.1"]
    dns.answers["other.test"] = ["127.0.0.1"]
    yield httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()


def test_https_to_the_pinned_address_still_checks_the_certificate_against_the_host(tls_server):
    port = tls_server
    allow = FetchPolicy(allow=(f"ferry.test:{port}", f"other.test:{port}"), allow_private=True, timeout_s=5)
    assert "06:40" in fetch(f"https://ferry.test:{port}/page.html", allow).text
    with pytest.raises(FetchError) as info:  # same address, a name the certificate does not hold
        fetch(f"https://other.test:{port}/page.html", allow)
    assert info.value.kind == "connection" and "SSLCertVerificationError" in str(info.value)
