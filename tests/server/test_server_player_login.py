"""Players with a password (issue 25): registration keeps working without one (the demo); with one a player signs
in again from another browser, which gets a new token and ends the old one; bad passwords change nothing."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import sqlalchemy as sa

from server_harness import Harness
from tablegames.server.db import Player

pytestmark = pytest.mark.timeout(120)


def test_a_player_signs_in_with_a_password_and_the_old_token_ends(
    make_server: Callable[..., Harness],
) -> None:
    h = make_server()
    c = h.client
    demo = c.post("/players", json={"name": "demo"})
    assert demo.status_code == 201  # no password: the token alone
    short = c.post("/players", json={"name": "ann", "password": "short"})
    assert short.status_code == 400 and short.json()["error"]["code"] == "bad_password"
    assert c.post("/players/login", json={"name": "ann", "password": "whatever it is"}).status_code == 401
    made = c.post("/players", json={"name": "ann", "password": "correct horse battery"})
    assert made.status_code == 201, made.text
    first = {"Authorization": f"Bearer {made.json()['token']}"}
    with h.server.sessions() as s:
        stored = s.scalar(sa.select(Player.password_hash).where(Player.name == "ann"))
    assert stored is not None and stored.startswith("$argon2id$") and "horse" not in stored
    assert (
        c.post("/players/login", json={"name": "ann", "password": "wrong horse battery"}).status_code == 401
    )
    assert c.post("/players/login", json={"name": "demo", "password": "anything at all"}).status_code == 401
    again = c.post("/players/login", json={"name": "ANN", "password": "correct horse battery"})  # look-alike
    assert again.status_code == 200 and again.json()["name"] == "ann"
    second = {"Authorization": f"Bearer {again.json()['token']}"}
    assert c.get("/me", headers=second).json()["name"] == "ann"
    assert c.get("/me", headers=first).status_code == 401  # one browser at a time
    # a password is changed with the current one; the demo player may set one
    bad = c.post("/players/password", json={"old": "nope", "new": "a new long one"}, headers=second)
    assert bad.status_code == 401
    ok = c.post(
        "/players/password", json={"old": "correct horse battery", "new": "a new long one"}, headers=second
    )
    assert ok.json() == {"ok": True}
    assert c.post("/players/login", json={"name": "ann", "password": "a new long one"}).status_code == 200
    demo_h = {"Authorization": f"Bearer {demo.json()['token']}"}
    assert c.post("/players/password", json={"new": "demo's own secret"}, headers=demo_h).json() == {
        "ok": True
    }
    assert c.post("/players/login", json={"name": "demo", "password": "demo's own secret"}).status_code == 200
