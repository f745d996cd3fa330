"""Who may talk to staragent's servers (the page and the MCP server over HTTP).

They listen on 127.0.0.1 unless told otherwise; any other address needs a token, which clients
present as ``Authorization: Bearer TOKEN``, as a ``?token=TOKEN`` query (a browser's first visit:
the answer sets a cookie so the page's own requests carry it), or in that cookie."""

from __future__ import annotations

import hmac
import ipaddress
from http.cookies import SimpleCookie
from urllib.parse import parse_qs

from .errors import InputError

COOKIE = "staragent_token"


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_binding(host: str, token: str | None) -> None:
    """Refuse to serve beyond this machine without a token."""
    if not is_loopback(host) and not token:
        raise InputError(
            f"listening on {host} lets other machines connect, so a token is required: pass --token TOKEN "
            "or set STARAGENT_SERVE__TOKEN (e.g. --token \"$(python -c 'import secrets; print(secrets.token_urlsafe(24))')\")"
        )


class TokenGate:
    """ASGI middleware: requests without the token get 401 (and nothing of the app behind it)."""

    def __init__(self, app, token: str):
        self.app = app
        self.token = token.encode()

    def _matches(self, candidate: str | None) -> bool:
        return candidate is not None and hmac.compare_digest(candidate.encode(), self.token)

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        bearer = headers.get("authorization", "")
        cookie = SimpleCookie(headers.get("cookie", "")).get(COOKIE)
        query = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [None])[0]
        if self._matches(bearer[7:] if bearer.lower().startswith("bearer ") else None) or self._matches(cookie.value if cookie else None):
            return await self.app(scope, receive, send)
        if self._matches(query):
            return await self.app(scope, receive, _with_cookie(send, self.token.decode()))
        if scope["type"] == "websocket":
            return await send({"type": "websocket.close", "code": 4401})
        body = b"a token is required: open the address staragent printed (with ?token=...) or send 'Authorization: Bearer TOKEN'\n"
        await send({"type": "http.response.start", "status": 401, "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


def _with_cookie(send, token: str):
    async def sending(message):
        if message["type"] == "http.response.start":
            cookie = f"{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict"
            message = {**message, "headers": [*message.get("headers", []), (b"set-cookie", cookie.encode("latin-1"))]}
        await send(message)

    return sending
