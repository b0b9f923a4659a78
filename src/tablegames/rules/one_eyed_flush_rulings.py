"""The text of every One Eyed Flush ruling (RULES.md §2), by id: the math report quotes it where it cites the id
(issue 22). Data of the rules layer; the rules module and its parameters cite the ids."""

from __future__ import annotations

RULINGS: dict[str, str] = {
    "R-OEF-1": (
        "The one-eyed cards J♥, J♠ and K♦ are wild. Every other card is natural. Point values of natural "
        "cards: A = 1, 2–10 = pip value, J, Q, K = 10. Pairs and trips are by rank, not by point value "
        "(10♣ Q♠ is no pair)."
    ),
    "R-OEF-2": (
        "Hand categories, best first. A wild card always takes the role that makes the hand best. 1. One "
        "Eyed Flush: all three one-eyed cards. 2. Three of a Kind with a Wild Card: two wilds and any "
        "card, or one wild and a natural pair. 3. Pair with a Wild Card: one wild and two natural cards "
        "of different ranks. Its remaining card is the lower-valued natural card (the wild pairs with the "
        "higher one). 4. Three of a Kind: three natural cards of one rank. 5. Pair: two natural cards of "
        "one rank; the third is the remaining card. 6. No Pair: three natural cards of different ranks; "
        "its value is the sum of the three point values."
    ),
    "R-OEF-3": (
        "Comparing player and dealer: the better category wins. Within a category: One Eyed Flush, Three "
        "of a Kind with a Wild Card, and Three of a Kind: standoff (push). Pair with a Wild Card and "
        "Pair: the lower remaining card wins. No Pair: the lower value wins. Equal remaining cards or "
        'values: the dealer wins ("player must be lower"). Variant `ties=tournament`: equal is a push. '
        "(The seed's line \"If player has lower point value, then it's a push\" contradicts its own "
        "examples and is not used.)"
    ),
    "R-OEF-4": (
        "Wagers before the deal: the main wager (required), and optionally the One Eyed Flush Jackpot and "
        "the Flip Card wager. Each player gets three cards face down; the dealer gets three, the second "
        "face up: the Flip Card, seen by all players while they decide."
    ),
    "R-OEF-5": (
        "In seat order each player either stands or discards exactly one of the three cards (burned face "
        "down) and draws one replacement. At most one draw."
    ),
    "R-OEF-6": (
        "Bust: a player's No Pair hand whose value is over 14 after that player drew loses at once. A "
        "player who did not draw cannot bust. Pair-or-better hands never bust. Variant `bust=always`: any "
        "final No Pair over 14 busts."
    ),
    "R-OEF-7": (
        "The dealer then reveals and draws at most once, discarding one card, by these rules only: - "
        "natural Pair with remaining card of value 5 or more: discards the remaining card and draws; - No "
        "Pair whose highest card has value 7 or more: discards that card and draws; - Pair with a Wild "
        "Card: draws only when at least one player still in the round (not busted) holds a final hand "
        "containing a wild card; then discards the higher-valued natural card; - every other hand (any "
        "Three of a Kind, One Eyed Flush) stands. Where two cards share the value to discard (10, J, Q, K "
        "are all worth 10), the dealer discards the higher rank (K, then Q, then J, then 10). The dealer "
        "cannot bust. Variants `dealer-wild-draw=always` / `dealer-wild-draw=never` for the "
        "Pair-with-a-Wild-Card draw (default `vs-wild`)."
    ),
    "R-OEF-8": (
        "Main wager: a win pays 1 to 1, a standoff pushes, a loss or bust loses. An optional main-wager "
        "bonus pay table by the player's winning category is configurable (default: every win 1 to 1)."
    ),
    "R-OEF-9": (
        "One Eyed Flush Jackpot: a fixed $1 wager (configurable) on the player's first three cards: One "
        "Eyed Flush 100% of the jackpot meter (reset $5,000, plus 10% of every jackpot wager); Three of a "
        "Kind with a Wild Card $20; Three of a Kind $30; Pair with a Wild Card $1; anything else loses."
    ),
    "R-OEF-10": (
        "Flip Card wager: before the deal the player names one outcome for the dealer's Flip Card: a "
        'point value 1–9 (pays 11 to 1), "ten-value" (any 10, J, Q or K, wild or not; pays 2 to 1), or '
        '"one-eyed" (J♥, J♠ or K♦; pays 15 to 1).'
    ),
}
