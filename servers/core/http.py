"""The streamable-HTTP transport of every server, with its guards.

- Off loopback a bearer token is required (`SILICON_AGENT_HTTP_TOKEN`); without one the
  server refuses to start. With a token set, every request must carry it, on loopback too.
- The Host and Origin checks (DNS rebinding) are always on, against an explicit allow-list:
  the loopback names, the bound address, and what `--allow-host` / `--allow-origin` or
  `SILICON_AGENT_HTTP_ALLOWED_HOSTS` / `SILICON_AGENT_HTTP_ALLOWED_ORIGINS` add.

Loopback here means exactly 127.0.0.1, ::1 and localhost: any other address, 127.0.0.2
included, is treated as reachable by others.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Receive, Scope, Send

TOKEN_ENV = "SILICON_AGENT_HTTP_TOKEN"
HOSTS_ENV = "SILICON_AGENT_HTTP_ALLOWED_HOSTS"
ORIGINS_ENV = "SILICON_AGENT_HTTP_ALLOWED_ORIGINS"
LOOPBACK = ("127.0.0.1", "::1", "localhost")
MIN_TOKEN_CHARS = 16
WILDCARD_BINDS = ("0.0.0.0", "::", "")


class HttpRefused(ValueError):
    """The server must not start with these settings; the message says what to change."""


@dataclass(frozen=True)
class HttpPlan:
    host: str
    port: int
    token: str | None
    allowed_hosts: tuple[str, ...]
    allowed_origins: tuple[str, ...]


def _listed(environ: Mapping[str, str], name: str) -> list[str]:
    return [item.strip() for item in environ.get(name, "").split(",") if item.strip()]


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def http_plan(
    host: str,
    port: int,
    environ: Mapping[str, str],
    allow_hosts: Sequence[str] = (),
    allow_origins: Sequence[str] = (),
) -> HttpPlan:
    token = environ.get(TOKEN_ENV) or None
    if token is not None and len(token) < MIN_TOKEN_CHARS:
        raise HttpRefused(f"{TOKEN_ENV} is shorter than {MIN_TOKEN_CHARS} characters")
    if host not in LOOPBACK and token is None:
        raise HttpRefused(
            f"binding {host} (off loopback) needs a bearer token: set {TOKEN_ENV} "
            f"(at least {MIN_TOKEN_CHARS} characters), or bind 127.0.0.1"
        )
    hosts = [f"{_bracketed(h)}:*" for h in LOOPBACK]
    origins = [f"http://{_bracketed(h)}:*" for h in LOOPBACK]
    if host not in LOOPBACK and host not in WILDCARD_BINDS:
        hosts.append(f"{_bracketed(host)}:{port}")
        origins.append(f"http://{_bracketed(host)}:{port}")
    hosts += [*_listed(environ, HOSTS_ENV), *allow_hosts]
    origins += [*_listed(environ, ORIGINS_ENV), *allow_origins]
    return HttpPlan(host, port, token, tuple(hosts), tuple(origins))


class BearerAuth:
    """Every HTTP request must carry `Authorization: Bearer <token>`."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"www-authenticate", b'Bearer realm="silicon-agent"'),
                            (b"content-type", b"text/plain"),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": b"bearer token required"})
                return
        await self.app(scope, receive, send)


def http_app(server: MCPServer, plan: HttpPlan) -> ASGIApp:
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=list(plan.allowed_hosts),
        allowed_origins=list(plan.allowed_origins),
    )
    app: ASGIApp = server.streamable_http_app(transport_security=security, host=plan.host)
    return BearerAuth(app, plan.token) if plan.token else app


def serve_http(server: MCPServer, plan: HttpPlan) -> None:
    import uvicorn

    uvicorn.run(http_app(server, plan), host=plan.host, port=plan.port, log_level="warning")
