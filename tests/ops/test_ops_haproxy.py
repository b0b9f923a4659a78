"""HAProxy from Debian's package in front of two ``tablegames serve`` processes (issue 16): the generated
configuration (``tablegames deploy haproxy``) is valid; ``/n/<NAME>/`` reaches that node with the prefix
stripped; a player registers, buys in and plays a full round through the proxy, its balance right to the cent;
with one node killed, every round-robin request still gets an answer from the other."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from ops_support import Player, create_table, needs_haproxy
from typer.testing import CliRunner

from server_harness import eventually
from tablegames.cli import app
from tablegames.loadtest.cluster import Cluster
from tablegames.loadtest.proxy import haproxy_binary, parse_node, render
from tablegames.rules import registry

pytestmark = pytest.mark.timeout(120)


def test_deploy_haproxy_writes_the_routes(tmp_path: Path) -> None:
    out = tmp_path / "haproxy.cfg"
    r = CliRunner().invoke(
        app,
        ["deploy", "haproxy", "--node", "n1=127.0.0.1:8001", "--node", "n2=10.0.0.2:8000", "--bind",
         "0.0.0.0:80", "--output", str(out)],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    text = out.read_text()
    assert "bind 0.0.0.0:80" in text
    for name, addr in (("n1", "127.0.0.1:8001"), ("n2", "10.0.0.2:8000")):
        assert f"acl to_{name} path_reg ^/n/{name}(/|$)" in text
        assert f"use_backend node_{name} if to_{name}" in text
        assert f"set-path %[path,regsub(^/n/{name}/?,/)]" in text  # the prefix stripped
        assert f"server {name} {addr} check" in text
    assert text.count("option httpchk GET /health\n") == 3 and "balance roundrobin" in text
    assert "timeout tunnel 1h" in text  # WebSockets are long-lived tunnels
    if haproxy_binary() is not None:
        checked = subprocess.run(
            [haproxy_binary() or "", "-c", "-f", str(out)], capture_output=True, text=True
        )
        assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--node", "n1"], "expected NAME=HOST:PORT"),
        (["--node", "n 1=127.0.0.1:1"], "bad node name"),
        (["--node", "n1=127.0.0.1:99999"], "bad node address"),
        (["--node", "n1=127.0.0.1:1", "--node", "n1=127.0.0.1:2"], "distinct"),
        (["--node", "n1=127.0.0.1:1", "--bind", "nowhere"], "bad bind address"),
    ],
)
def test_deploy_haproxy_refuses_bad_nodes(args: list[str], message: str, tmp_path: Path) -> None:
    out = tmp_path / "h.cfg"
    r = CliRunner().invoke(app, ["deploy", "haproxy", *args, "--output", str(out)])
    assert r.exit_code == 2 and message in r.output
    assert not out.exists()  # nothing written


@needs_haproxy
def test_play_through_haproxy_in_front_of_two_servers(make_cluster: Callable[..., Cluster]) -> None:
    cluster = make_cluster(2, proxy=True, turn_seconds=0.5)
    proxy = cluster.proxy_url
    assert proxy is not None
    n1, n2 = cluster.nodes
    assert (n1.advertise, n2.advertise) == (f"{proxy}/n/n1", f"{proxy}/n/n2")
    # the prefix is stripped: the node sees /nowhere
    r = httpx.get(f"{proxy}/n/n2/nowhere")
    assert r.status_code == 404 and "GET /nowhere" in r.json()["error"]["message"]

    game = registry.DEFINITIONS[0]
    table = create_table(n1.advertise, game.key)  # through /n/n1/ (with leases its creator owns it)
    ann = Player(proxy, "ann", buy_in=50_000)  # registered and bought in through the proxy, round-robin
    ann.join(table, n1.advertise)  # the table's socket through /n/n1/
    ann.send(type="wager", request_id="w1", wagers={game.main_wager.name: 100})
    ann.until(lambda m: m["type"] == "ack" and m.get("request_id") == "w1")
    result = ann.until(lambda m: m["type"] == "round_result", timeout=30)
    net = sum(x["net"] for x in result["results"])
    assert result["balance"] == 50_000 + net
    assert httpx.get(f"{n1.advertise}/me", headers=ann.headers).json()["balance"] == 50_000 + net
    ann.close()

    cluster.kill("n2")  # round-robin requests all go to n1 now (a refused connection is redispatched)
    deadline = time.monotonic() + 10
    codes = []
    while time.monotonic() < deadline and len(codes) < 20:
        codes.append(httpx.get(f"{proxy}/tables", timeout=5).status_code)
    assert codes == [200] * 20
    # the health check takes n2 out: its own path answers 503 from the proxy
    eventually(lambda: httpx.get(f"{proxy}/n/n2/tables", timeout=5).status_code == 503, "n2 taken out", 20)


def test_render_needs_a_node() -> None:
    with pytest.raises(ValueError, match="at least one"):
        render([])
    assert parse_node("a_1=[::1]:8000").host == "[::1]"
