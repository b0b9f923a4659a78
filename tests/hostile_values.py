"""Every kind of text a rule parameter can be sent (issue 20): valid values of each kind, their near misses,
and hostile ones (huge digits and exponents, Unicode digits, deep TOML). Shared by the parameter parser's and
the Math lab endpoints' property tests."""

from __future__ import annotations

from hypothesis import strategies as st

from tablegames.rules.parameters import LOSES, Parameter

HOSTILE: tuple[str, ...] = (
    "$1e10000000",  # issue 20: 10^10,000,000 computed on the event loop
    "1e-10000000",
    "1e10000000",
    "1e-5000",
    "$1e100",
    "²",  # str.isdigit, then int(): a 500
    "١٢",
    "𝟗",
    "½",
    "--5",
    "+5",
    "-",
    "",
    " ",
    "\x00",
    "9" * 5000,  # beyond int()'s 4,300 digits
    "9" * 4000,
    "$" + "9" * 5000,
    "1/" + "9" * 5000,
    "9" * 4301 + "%",
    "1" + "0" * 20,
    "$1.005",
    "$-5",
    "1/0",
    "nan",
    "inf",
    "-0",
    "1e99",
    "0x10",
    "1_000",
    "1,0,0",
    "Jh Jh",
    "Zz",
    "x" * 300,
)

HUGE_INTS: tuple[int, ...] = (10**15, -(10**15), 10**18, -(10**18), 2**63, 2**64 + 1, 10**40)

_NUMBERISH = r"\$?-?[0-9]{0,20}(\.[0-9]{0,20})?([eE][+-]?[0-9]{0,8})?(/[0-9]{0,20})?%?"


def any_text() -> st.SearchStrategy[str | int]:
    """Any value of any kind: numbers as text (in and far beyond every range), hostile texts, big ints."""
    return st.one_of(
        st.sampled_from(HOSTILE),
        st.sampled_from(HUGE_INTS),
        st.integers(-(10**20), 10**20),
        st.integers(-(10**20), 10**20).map(str),
        st.from_regex(_NUMBERISH, fullmatch=True),
        st.text(max_size=12),
        st.just(LOSES),
    )


def value_text(p: Parameter) -> st.SearchStrategy[str | int]:
    """A value for ``p``: mostly of its own kind (in range, at and beyond its bounds), else anything."""
    own: list[st.SearchStrategy[str | int]] = []
    if p.choices:
        own.append(st.sampled_from(p.choices))
    if p.kind in ("int", "odds", "money"):
        lo, hi = int(p.low or 0), int(p.high if p.high is not None else 10**6)
        own.append(st.integers(lo - 2, min(hi, lo + 1000) + 2).map(str))
        own.append(st.sampled_from([str(lo), str(hi), str(hi + 1), str(lo - 1)]))
        if p.kind == "money":
            own.append(st.integers(0, 10**6).map(lambda c: f"${c // 100}.{c % 100:02d}"))
    if p.kind == "fraction":
        own.append(st.tuples(st.integers(0, 100), st.integers(1, 100)).map(lambda t: f"{t[0]}/{t[1]}"))
        own.append(st.integers(0, 120).map(lambda n: f"{n}%"))
    if p.kind == "cards":
        own.append(st.sampled_from(["Jh Js Kd", "none", "Ah", "Jh Js Kd Qc", "2c 2c"]))
    return st.one_of(*own, any_text()) if own else any_text()


DEPTH = 20_000  # issue 20: TOML nested 20,000 deep


def deep_tomls(game: str) -> list[str]:
    """Game files nested far deeper than any game file is: arrays, inline tables, dotted keys, headers."""
    head = f'game = "{game}"\n[rules]\n'
    return [
        head + "x = " + "[" * DEPTH + "]" * DEPTH,
        head + "x = " + "{a=" * DEPTH + "1" + "}" * DEPTH,
        head + "a." * DEPTH + "b = 1",
        f'game = "{game}"\n[rules' + ".a" * DEPTH + "]\nb = 1",
        head + "x = " + "9" * 5000,
        head + "x = " + "[" * 900 + "]" * 900,
    ]
