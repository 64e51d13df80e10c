"""Second red team, the HTTP transport off loopback: Host and Origin look-alikes, the token
where it does not belong, near-miss Authorization values, and other paths and methods to the
MCP endpoint. Nothing but the right token, host and origin may reach a tool."""

from __future__ import annotations

import pytest

from .test_rt_http_and_ingest import TOKEN, call, open_server  # noqa: F401 (a fixture)


@pytest.fixture(scope="module")
def port(open_server: int) -> int:  # noqa: F811 (the imported fixture)
    """The first red team's server: bound to every interface, with a token."""
    return open_server


BEARER = {"Authorization": f"Bearer {TOKEN}"}


def attacks(port: int) -> dict[str, tuple[dict[str, str], str, str, set[int]]]:
    """name -> (headers, path, method, acceptable statuses)."""
    return {
        "host_suffix_lookalike": (
            {**BEARER, "Host": f"127.0.0.1.attacker.example:{port}"}, "/mcp", "POST", {421, 400},
        ),
        "host_localhost_prefix": (
            {**BEARER, "Host": f"localhost.attacker.example:{port}"}, "/mcp", "POST", {421, 400},
        ),
        "origin_null": ({**BEARER, "Origin": "null"}, "/mcp", "POST", {403}),
        "origin_lookalike": (
            {**BEARER, "Origin": f"http://127.0.0.1.attacker.example:{port}"}, "/mcp", "POST",
            {403},
        ),
        "token_in_query": ({}, f"/mcp?token={TOKEN}&access_token={TOKEN}", "POST", {401}),
        "token_with_suffix": ({"Authorization": f"Bearer {TOKEN}x"}, "/mcp", "POST", {401}),
        "token_as_cookie": ({"Cookie": f"token={TOKEN}"}, "/mcp", "POST", {401}),
        "token_in_other_header": ({"X-Api-Key": TOKEN, "Authorization": "Bearer "}, "/mcp",
                                  "POST", {401}),
        "get_stream_without_token": ({}, "/mcp", "GET", {401}),
        "delete_session_without_token": ({"Mcp-Session-Id": "x"}, "/mcp", "DELETE", {401}),
        "trailing_slash_path": ({}, "/mcp/", "POST", {401, 404, 405, 307}),
        "double_slash_path": ({}, "//mcp", "POST", {401, 404, 405, 307}),
        "upper_case_path": ({}, "/MCP", "POST", {401, 404, 405}),
    }  # fmt: skip


NAMES = sorted(attacks(0))


@pytest.mark.parametrize("name", NAMES)
def test_http_request_without_the_right_credentials_is_refused(name: str, port: int) -> None:
    headers, path, method, allowed = attacks(port)[name]
    status = call(port, headers, path, method)
    assert status in allowed, (name, status)
    assert call(port, BEARER) == 200  # the right call still answers
