"""``tablegames deploy haproxy``: the HAProxy configuration for several table-server processes (issue 16,
docs/deployment.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tablegames.cli.common import fail

deploy_app = typer.Typer(
    name="deploy",
    help="Configuration files for running several server processes (docs/deployment.md).",
    no_args_is_help=True,
)


@deploy_app.command("haproxy")
def haproxy(
    node: Annotated[
        list[str],
        typer.Option(
            "--node",
            help="a server process as NAME=HOST:PORT (repeat for each; NAME is its `serve --node`)",
        ),
    ],
    bind: Annotated[str, typer.Option(help="address the proxy listens on, ADDR:PORT")] = "127.0.0.1:8080",
    health: Annotated[str, typer.Option(help="the servers' health-check path")] = "/health",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="write the configuration here (default: stdout)")
    ] = None,
    template: Annotated[
        Path | None, typer.Option(help="another template (default: deploy/haproxy.cfg.template)")
    ] = None,
    max_connections_per_source: Annotated[
        int, typer.Option(help="open connections one client address may hold (more are refused)")
    ] = 256,
    max_requests_per_source: Annotated[
        int, typer.Option(help="HTTP requests one client address may send in 10 s (more get 429)")
    ] = 1000,
    request_timeout: Annotated[
        float, typer.Option(help="seconds a client has to send a request's headers (timeout http-request)")
    ] = 10.0,
) -> None:
    """Print (or write) an HAProxy configuration: /n/NAME/... to node NAME (prefix stripped), everything else
    round-robin over the healthy nodes, WebSockets as long-lived tunnels, per-address connection and request-rate
    limits. Check it with `haproxy -c -f FILE`."""
    from tablegames.loadtest.proxy import ProxyLimits, parse_node, render

    try:
        nodes = [parse_node(n) for n in node]
        limits = ProxyLimits(max_connections_per_source, max_requests_per_source, request_timeout)
        text = render(nodes, bind=bind, health=health, template=template, limits=limits)
    except ValueError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot read the template: {exc}")
    if output is None:
        typer.echo(text, nl=False)
        return
    try:
        output.write_text(text)
    except OSError as exc:
        fail(f"cannot write {output}: {exc}")
    typer.echo(f"wrote {output} ({len(nodes)} nodes, listening on {bind})", err=True)


def register(app: typer.Typer) -> None:
    """Add ``deploy`` (a group of commands) to ``app``."""
    app.add_typer(deploy_app)
