"""A stand-in for a table-server process behind HAProxy (the proxy tests that need no database): answers every
GET, HEAD and POST with 200 and ``{"node": NAME, "path": PATH}``, on 127.0.0.1:PORT.

Run as ``python stub_node.py NAME PORT``; SIGSTOP it to play a paused node."""

from __future__ import annotations

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main() -> None:
    name, port = sys.argv[1], int(sys.argv[2])

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(length)
            body = json.dumps({"node": name, "path": self.path}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        do_GET = do_POST = do_HEAD = _answer

        def log_message(self, *args: object) -> None:
            pass

    class Server(ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request: object, client_address: object) -> None:
            pass  # the proxy's health checks close their connections without reading the body

    Server(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    main()
