// Let It Ride's felt: three equal spots for bets 1, 2 and $, the 3-Card Bonus and the $1 Progressive coin;
// the dealer's place holds the two community cards (R-LIR-2/3: the dealer's first card is burned, never shown).
// A spot of one of the three bets is keyed "bets <part>": the outcome of the settled event naming that part.

export default {
  sceneClass: "felt-compact", // five spots a seat: the smaller spots of the stylesheet
  bigMeters: ["mega"],
  spots: [
    { key: "bets 1", wager: "bets", part: "1", label: "1", kind: "main" },
    { key: "bets 2", wager: "bets", part: "2", label: "2", kind: "main" },
    { key: "bets $", wager: "bets", part: "$", label: "$", kind: "main" },
    { key: "bonus", wager: "bonus", label: "3-CARD BONUS", kind: "side" },
    { key: "progressive", wager: "progressive", label: "PROG", kind: "coin" },
  ],
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
  // a pulled bet's spot is empty: the view lists the bets still up per seat
  partUp: (round, seat, part) => {
    const up = round && round.bets_up ? round.bets_up[String(seat)] : null;
    return !up || up.includes(part);
  },
};
