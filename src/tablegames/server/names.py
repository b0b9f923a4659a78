"""Player names: what may be registered, and the look-alike key that makes two names one (docs/protocol.md).

A name is normalised with NFKC (so full-width ``ａｎｎ`` is ``ann``), stripped, and must then be 1-40 characters
of a deliberately small set: ASCII letters, digits, space, ``_``, ``.`` and ``-``, starting with a letter or a
digit. Restricting names to one script (Latin, ASCII) is what keeps out the cross-script confusables that NFKC
and case folding leave alone (Cyrillic ``а`` for Latin ``a``, Greek ``ο`` for ``o``): no name can contain them.

Within that set, :func:`name_key` folds what still looks alike: case, ``0``/``o``, ``1``/``l``/``I``/``i``,
``rn``/``m``, ``vv``/``w``, and the separators (any run of space, ``_``, ``.``, ``-`` is one separator; leading
and trailing ones do not count). Two names with one key are one name: the second is ``name_taken``. The name is
kept and shown as typed (after NFKC).
"""

from __future__ import annotations

import re
import unicodedata

MAX_NAME = 40
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9 _.\-]{0,39}")
NAME_RULE = (
    "a name is 1-40 ASCII letters, digits, spaces, '_', '.' or '-', starting with a letter or a digit "
    "(other scripts are not accepted: they allow look-alike names)"
)
_SEPARATORS = re.compile(r"[ _.\-]+")
_LOOK_ALIKE = str.maketrans({"0": "o", "1": "l", "i": "l"})


def display_name(name: object) -> str | None:
    """The name as it will be shown (NFKC, stripped), or None when it is not an acceptable name.

    >>> display_name("  Ann "), display_name("ａｎｎ"), display_name("аnn"), display_name("<b>"), display_name(7)
    ('Ann', 'ann', None, None, None)
    """
    if not isinstance(name, str) or len(name) > 4 * MAX_NAME:
        return None
    shown = unicodedata.normalize("NFKC", name).strip()
    return shown if NAME_RE.fullmatch(shown) else None


def name_key(name: str) -> str:
    """The look-alike key of an (acceptable) name: names with one key cannot both be registered.

    >>> [name_key(n) for n in ("ann", "Ann", "ANN", "ａｎｎ", "ann.", "a_n-n", "a  n n")]
    ['ann', 'ann', 'ann', 'ann', 'ann', 'a_n_n', 'a_n_n']
    >>> name_key("Bi11") == name_key("bill") == name_key("BILL"), name_key("r0rn") == name_key("rom")
    (True, True)
    """
    key = unicodedata.normalize("NFKC", name).casefold()
    key = _SEPARATORS.sub("_", key).strip("_")
    key = key.translate(_LOOK_ALIKE)
    return key.replace("rn", "m").replace("vv", "w")
