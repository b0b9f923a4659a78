"""The text of every Final Count ruling (RULES.md §3), by id: the math report quotes it where it cites the id
(issue 22). Data of the rules layer; the rules module and its parameters cite the ids."""

from __future__ import annotations

RULINGS: dict[str, str] = {
    "R-FC-1": (
        "Values: A = 1, 2–10 = pip value, J, Q, K = 10 (variant `face-value=0`: J, Q, K = 0). A total is "
        "odd or even."
    ),
    "R-FC-2": (
        "The player makes the game wager. Each player and the dealer get three cards: two face up, the "
        "third face down, unseen by everyone (the player does not peek)."
    ),
    "R-FC-3": (
        "Player's two up cards total odd: the dealer turns the player's third card; if the three-card "
        "total is still odd the player loses at once; if even, the player stays with the three-card "
        "total."
    ),
    "R-FC-4": (
        "Player's two up cards total even: the player chooses to stand on the two-card total (the third "
        "card is never counted) or to have the third card turned; an odd three-card total then loses at "
        "once, an even one stays."
    ),
    "R-FC-5": (
        "After all players have decided, the dealer turns the dealer's third card. An odd dealer total "
        "busts the dealer: every player still in wins 1 to 1. An even dealer total is compared: the "
        "higher total wins 1 to 1, a tie pushes, a lower total loses."
    ),
}
