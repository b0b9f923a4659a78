// Three Card Poker's felt: the dealer's three cards face down until the showdown (R-TCP-1), the generic
// dealer. The spots (the Ante and the Play beside it, up once the round's view says the seat played, R-TCP-2;
// Pair Plus, R-TCP-6) come from GET /games and the view's ``parts_up``.

export default {
  outLabel: "FOLDED",
};
