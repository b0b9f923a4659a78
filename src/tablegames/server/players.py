"""Players: registration (names, tokens), authentication, the operator's token, a player's own summary.

:class:`PlayerService`'s methods block on the database (the routes call them on the REST threads) except
:meth:`~PlayerService.is_admin` and :meth:`~PlayerService.check_admin`, which touch no database."""

from __future__ import annotations

import secrets
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from tablegames.server import ledger
from tablegames.server.checks import hash_token
from tablegames.server.core import PlayerInfo
from tablegames.server.db import (
    WALLET,
    Account,
    Player,
    Seating,
)
from tablegames.server.errors import ApiError
from tablegames.server.limits import KnownTokens
from tablegames.server.names import NAME_RULE, display_name, name_key
from tablegames.server.staff import PASSWORD_MAX, check_password, hash_password, verify_password
from tablegames.server.transactions import Transactions


class PlayerService:
    """Players and tokens over the server's unit of work (``db``). ``known_tokens``: the tokens seen valid (the
    rate limiter gives only these their own bucket)."""

    def __init__(self, db: Transactions, admin_token: str, known_tokens: KnownTokens) -> None:
        self.db = db
        self.admin_token = admin_token
        self.known_tokens = known_tokens
        self.sessions: Any = None  # server/sessions.py's Sessions (set by the server): every request is seen

    def register(self, name: object, password: object = None) -> tuple[PlayerInfo, str]:
        """A new player (names: ``tablegames.server.names``; a name whose look-alike key is registered already
        is ``name_taken``, whatever its case or look-alike characters). With a ``password`` (argon2-hashed) they
        can sign in again from any browser (:meth:`login`); without one, their token is their only key."""
        shown = display_name(name)
        if shown is None:
            raise ApiError("bad_name", NAME_RULE)
        hashed = None if password is None else hash_password(check_password(password))
        key = name_key(shown)
        taken = ApiError("name_taken", f"the name {shown!r} is taken (or one that looks the same)", 409)
        token = secrets.token_urlsafe(32)
        try:
            with self.db.tx() as s:
                if s.scalar(select(Player.id).where(Player.name_key == key)) is not None:
                    raise taken
                acc = Account(name=f"wallet:{shown}", kind=WALLET, balance=0)
                s.add(acc)
                s.flush()
                p = Player(
                    name=shown,
                    name_key=key,
                    token_hash=hash_token(token),
                    account_id=acc.id,
                    password_hash=hashed,
                )
                s.add(p)
                s.flush()
                info = PlayerInfo(p.id, p.name, acc.id)
        except IntegrityError:  # the same key raced in (the unique index), or an old account name
            raise taken from None
        self.known_tokens.add(token)
        return info, token

    def login(self, name: object, password: object) -> tuple[PlayerInfo, str, float | None]:
        """Sign in with a name and password: a new token (the old one stops working: one browser at a time), and
        the previous login's time (issue 26; None: the first)."""
        refused = ApiError("bad_login", "wrong name or password", 401)
        shown = display_name(name)
        if shown is None or not isinstance(password, str) or len(password) > PASSWORD_MAX:
            raise refused
        token = secrets.token_urlsafe(32)
        with self.db.tx() as s:
            p = s.scalar(select(Player).where(Player.name_key == name_key(shown)))
            if p is None or p.password_hash is None or not verify_password(p.password_hash, password):
                raise refused
            p.token_hash = hash_token(token)
            info = PlayerInfo(p.id, p.name, p.account_id)
        self.known_tokens.add(token)
        previous = self.sessions.login(info) if self.sessions is not None else None
        return info, token, previous

    def set_password(self, player: PlayerInfo, old: object, new: object) -> None:
        """A player's own (new) password; the current one is needed to change it."""
        hashed = hash_password(check_password(new))
        with self.db.tx() as s:
            p = s.get(Player, player.player_id)
            assert p is not None
            if p.password_hash is not None and (
                not isinstance(old, str) or not verify_password(p.password_hash, old)
            ):
                raise ApiError("bad_login", "the current password is wrong", 401)
            p.password_hash = hashed

    def authenticate(self, token: str | None) -> PlayerInfo:
        """The player of ``token`` or ``unauthorized`` (checked on every request)."""
        if not token or not isinstance(token, str) or len(token) > 200:
            raise ApiError(
                "unauthorized", "missing token: register with POST /players and send the token", 401
            )
        with self.db.sessions() as s:
            p = s.scalar(select(Player).where(Player.token_hash == hash_token(token)))
            if p is None:
                raise ApiError("unauthorized", "unknown token", 401)
            if p.suspended:  # by staff (issue 25): nothing more until they reinstate it
                raise ApiError("suspended", "this account is suspended by the casino: contact its staff", 403)
            self.known_tokens.add(token)
            info = PlayerInfo(p.id, p.name, p.account_id)
        if self.sessions is not None:
            self.sessions.touch(info)
        return info

    def check_admin(self, token: str | None) -> None:
        if not self.is_admin(token):
            raise ApiError("forbidden", "this operator action needs the admin token (X-Admin-Token)", 403)

    def is_admin(self, token: str | None) -> bool:
        return bool(token) and secrets.compare_digest(str(token).encode(), self.admin_token.encode())

    def me(self, player: PlayerInfo) -> dict[str, Any]:
        with self.db.sessions() as s:
            seats = s.execute(
                select(Seating.table_id, Seating.seat).where(Seating.player_id == player.player_id)
            )
            return {
                "player_id": player.player_id,
                "name": player.name,
                "balance": ledger.balance(s, player.account_id),
                "seats": [{"table_id": t, "seat": n} for t, n in seats],
            }
