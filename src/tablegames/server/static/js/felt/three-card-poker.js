// Three Card Poker's felt: the Ante, the Play spot beside it (chips once the seat plays, R-TCP-2) and Pair
// Plus (R-TCP-6); the dealer's three cards face down until the showdown (R-TCP-1).

export default {
  spots: [
    { key: "ante", wager: "ante", part: "ante", label: "ANTE", kind: "main", results: ["ante"] },
    { key: "play", wager: "ante", part: "play", label: "PLAY", kind: "main", results: ["play"] },
    { key: "pair-plus", wager: "pair-plus", label: "PAIR PLUS", kind: "side" },
  ],
  // the Play spot holds chips once the view says the seat played
  partUp: (round, seat, part) => part !== "play" || (!!round && (round.played || []).includes(seat)),
  outLabel: "FOLDED",
};
