// Let It Ride's felt: the dealer's place holds the two community cards (R-LIR-2/3: the dealer's first card
// is burned, never shown). The spots (one per part of the main wager, the side bets) and the big meter come
// from GET /games; which parts are still up from the round's view (``parts_up``).

export default {
  sceneClass: "felt-compact", // five spots a seat: the smaller spots of the stylesheet
  dealer: {
    cards: (round) => {
      if (!round || round.phase === "betting") return [];
      const community = round.community || [];
      return [community[0] ?? null, community[1] ?? null];
    },
    slots: 2,
    cls: "community-cards",
    sub: "COMMUNITY CARDS",
  },
};
