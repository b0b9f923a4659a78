"""The text of every Three Card Poker ruling (RULES.md §4), by id: the math report quotes it where it cites the id
(issue 22). Data of the rules layer; the rules module and its parameters cite the ids."""

from __future__ import annotations

RULINGS: dict[str, str] = {
    "R-TCP-1": (
        "Wagers before the deal: the Ante, and the Pair Plus, each optional but at least one of them; "
        "Pair Plus may be played alone. Each player and the dealer get three cards face down."
    ),
    "R-TCP-2": (
        "A player with an Ante, having seen only the own three cards, either folds (the Ante is lost) or "
        "plays by placing a Play wager equal to the Ante. Server timeout default: fold."
    ),
    "R-TCP-3": (
        "Three-card hands, best first: Straight Flush, Three of a Kind, Straight, Flush, Pair, High Card. "
        "A-K-Q is the highest straight, A-2-3 the lowest (its high card is the 3). Equal categories "
        "compare by rank: a pair's rank, then its kicker; otherwise the three ranks high to low. Suits "
        "never break ties."
    ),
    "R-TCP-4": (
        "The dealer qualifies with Queen high or better. Not qualifying: the Ante pays 1 to 1 and the "
        "Play pushes. Qualifying: a higher player hand wins Ante and Play 1 to 1, an equal hand pushes "
        "both, a lower loses both."
    ),
    "R-TCP-5": (
        "Ante Bonus, paid on the Ante of a player who played, whatever the dealer holds: Straight Flush 5 "
        "to 1, Three of a Kind 4 to 1, Straight 1 to 1 (`ante-bonus=5-4-1`, the default)."
    ),
    "R-TCP-6": (
        "Pair Plus, on the player's three cards, whatever the dealer holds and whether the player folds: "
        "Straight Flush 40 to 1, Three of a Kind 30 to 1, Straight 6 to 1, Flush 4 to 1, Pair 1 to 1 "
        "(`pair-plus=40-30-6-4-1`, the default); variant `pair-plus=40-30-6-3-1`."
    ),
    "R-TCP-7": (
        "Analysis: house edge of Ante/Play per unit of Ante (Ante Bonus included), element of risk per "
        "average total of Ante and Play; Pair Plus on its own."
    ),
}
