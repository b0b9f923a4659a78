"""Browser-test fixtures: Debian's chromium driven by Playwright (never a downloaded browser), screenshots.

Every test module here sets ``pytestmark = pytest.mark.browser``; the tests are skipped when ``/usr/bin/chromium`` (or the Playwright package)
is missing, so a machine without them still runs the rest of the suite (CI installs chromium: .ci/system-deps).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("TABLEGAMES_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
STATIC = ROOT / "src" / "tablegames" / "server" / "static"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium for one test module. Module scope, not session: Playwright's sync API keeps an asyncio loop
    running in the main thread while it is open, which would break later tests that call ``asyncio.run``."""
    if not Path(CHROMIUM).exists() and shutil.which("chromium") is None:
        pytest.skip(f"no chromium at {CHROMIUM} (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="session")
def screenshots() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


class ConsoleErrors:
    """Collects page errors and console errors of a page so a test can assert there were none."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def watch(self, page: Any) -> Any:
        page.on("pageerror", lambda exc: self.errors.append(f"pageerror: {exc}"))
        page.on("console", lambda msg: msg.type == "error" and self.errors.append(f"console: {msg.text}"))
        return page


@pytest.fixture()
def page_errors() -> ConsoleErrors:
    """Page errors and console errors of the pages a test watches (``page_errors.watch(page)``)."""
    return ConsoleErrors()


@pytest.fixture(scope="session")
def static_dir() -> Path:
    return STATIC
