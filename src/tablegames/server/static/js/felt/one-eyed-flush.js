// One Eyed Flush's felt (its spots and big meter come from GET /games): the dealer's three cards, the
// second one (the Flip Card, R-OEF-4) dealt face up and marked. The wild cards are drawn marked as the
// round's view lists them (``wild_cards``, R-OEF-1): a drawing mark only, the server scores every hand.

import { cardText } from "../cards.js";

export default {
  dealer: {
    cardClass: (i, round) => (i === 1 && !(round && round.phase === "settled") ? "flip-card" : ""),
    note: (round) => {
      const flip = round && round.flip_card;
      if (!flip) return "FLIP CARD DEALT FACE UP";
      return round.phase === "settled" ? `FLIP CARD WAS ${cardText(flip)}` : "FLIP CARD";
    },
  },
  outLabel: "BUST",
};
