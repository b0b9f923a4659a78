// The generic felt layout, and the shape of every game's felt module (js/felt/<game-key>.js, named by the
// "felt" field of GET /games), whose default export it completes. Layout and words only: where a seat's
// spots and the dealer's cards go and how they are labelled. No rule of any game: the server decides.
//
//   spots: [{key, wager, label, kind, part?, results?}]: a seat's betting spots, in drawing order.
//       key: the spot's name (data-wager); wager: the wager whose amount it holds; label: its print;
//       kind: "main" | "side" | "coin" (its shape); part: one of the equal bets a multi-bet wager is made of,
//       holding chips while ``partUp`` says so; results: the settled names whose outcome colours it (a wager's
//       name, or "<wager> <part>" for a settled event that names its part).
//   dealer: {cards(round), slots, cls, label, sub?, cardClass?(i, round), note?(round)}: the dealer's area.
//   handCardClass(i): an extra class for a seat's i-th card; wild: the card codes drawn marked wild;
//   partUp(round, seat, part): whether a part of a multi-bet wager still holds chips;
//   outLabel: what a seat that is out of the round shows when the view names no hand.
//   sceneClass: an extra class on the table scene, e.g. "felt-compact" (the stylesheet's smaller spots, for a
//       seat with many of them); bigMeters: the meter names drawn as the big prize ("meter-big").

/** Spots for a game's wagers, in the order GET /games lists them: the main wager, then the side bets. */
export function spotsFor(game) {
  return (game.wagers || []).map((w) => ({
    key: w.name,
    wager: w.name,
    label: String(w.main ? "bet" : w.title || w.name).toUpperCase(),
    kind: w.main ? "main" : w.fixed_cents !== null && w.fixed_cents !== undefined ? "coin" : "side",
  }));
}

const dealt = (round) => !!round && round.phase !== "betting";

export const DEFAULT_DEALER = {
  cards: (round) => (dealt(round) ? round.dealer || [] : []),
  slots: 3,
  cls: "dealer-cards",
  label: "DEALER",
};

/** The layout of ``game`` (a GET /games entry): its felt module's default export over the generic one. */
export function feltFor(game, layout = null) {
  const own = layout || {};
  return {
    spots: own.spots || spotsFor(game),
    dealer: { ...DEFAULT_DEALER, ...(own.dealer || {}) },
    handCardClass: own.handCardClass || (() => ""),
    wild: new Set(own.wild || []),
    partUp: own.partUp || (() => true),
    outLabel: own.outLabel || "OUT",
    sceneClass: own.sceneClass || "",
    bigMeters: own.bigMeters || [],
  };
}
