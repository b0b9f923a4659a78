"""The text of every Let It Ride ruling (RULES.md §1), by id: the math report quotes it where it cites the id
(issue 22). Data of the rules layer; the rules module and its parameters cite the ids."""

from __future__ import annotations

RULINGS: dict[str, str] = {
    "R-LIR-1": (
        'The player makes three equal wagers, "1", "2" and "$", and may add a 3-Card Bonus wager and a '
        "Progressive wager. Each player and the dealer get three cards."
    ),
    "R-LIR-2": (
        "After viewing three cards, the player may withdraw wager 1 or let it ride. The dealer then burns "
        "one of the dealer's three cards and turns the next face up: the first community card."
    ),
    "R-LIR-3": (
        "The player may then withdraw wager 2 or let it ride; the dealer turns the last dealer card face "
        'up: the second community card. Wager "$" can never be withdrawn.'
    ),
    "R-LIR-4": (
        "The player's three cards plus the two community cards form a 5-card poker hand (ace high or low "
        "in straights, no wild cards). Each wager still up is paid by this table, else lost: Royal Flush "
        "1000 to 1; Straight Flush 200 to 1; Four of a Kind 50 to 1; Full House 11 to 1; Flush 8 to 1; "
        "Straight 5 to 1; Three of a Kind 3 to 1; Two Pair 2 to 1; Pair of tens or better 1 to 1"
    ),
    "R-LIR-5": (
        "Aggregate payout limit: the base-game win of one hand (all its wagers together) is capped at "
        "$50,000. The cap does not apply to the 3-Card Bonus or the Progressive."
    ),
    "R-LIR-6": (
        "3-Card Bonus, on the player's first three cards, independent of the base game. The seed's table "
        'is shifted (its header cell reads "Mini Royal Flush"); the default reads it as: Mini Royal Flush '
        "(A-K-Q suited) counts as a Straight Flush, 50 to 1; Three of a Kind 40 to 1; Straight 6 to 1; "
        "Flush 3 to 1; Pair 1 to 1. In three-card hands a straight outranks a flush; A-2-3 and Q-K-A are "
        "straights. Variant pay tables in common casino use must be selectable by name "
        "(`bonus-paytable=...`), at least `50-40-30-6-3-1` and `50-40-30-6-4-1` (Mini Royal / Straight "
        "Flush / Trips / Straight / Flush / Pair); the default is `seed`."
    ),
    "R-LIR-7": (
        "Progressive: a fixed $1 wager (configurable), on the player's final 5-card hand: Royal Flush "
        "100% of the Mega meter; Straight Flush 100% of the Major meter; Four of a Kind 100% of the Minor "
        "meter; Full House $50 (the seed's blank row); Flush $40; Straight $30; Three of a Kind $9. Each "
        "meter has a reset (seed) value and a share of every progressive wager added to it (defaults: "
        "Mega $50,000 + 10%, Major $5,000 + 4%, Minor $500 + 2%; all configurable). A hit pays the "
        "meter's value and resets it. Two hits of one meter in one round are paid in seat order, the "
        "second from the reset value."
    ),
    "R-LIR-8": (
        "Envy Bonus: when a player with a Progressive wager makes a Royal Flush, every other player at "
        "the table with a Progressive wager is paid $1,000; for a Straight Flush, $300. The hitting "
        "player gets no Envy Bonus for their own hand."
    ),
}
