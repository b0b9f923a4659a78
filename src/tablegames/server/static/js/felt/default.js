// The generic felt layout, and the shape of every game's felt module (js/felt/<game-key>.js, named by the
// "felt" field of GET /games), whose default export it completes. Layout and words only: where the dealer's
// cards go and how they are labelled. No rule of any game, and no wager of one: the spots, their parts and
// labels and the big meters come from GET /games, which parts are up from the round's view.
//
//   spots: [{key, wager, label, kind, part?, results?}]: a seat's betting spots, in drawing order.
//       key: the spot's name (data-wager); wager: the wager whose amount it holds; label: its print;
//       kind: "main" | "side" | "coin" (its shape); part: one of the equal bets a multi-bet wager is made of,
//       holding chips while ``partUp`` says so; results: the settled names whose outcome colours it (a wager's
//       name, or "<wager> <part>" for a settled event that names its part).
//   dealer: {cards(round), slots, cls, label, sub?, cardClass?(i, round), note?(round)}: the dealer's area.
//   handCardClass(i): an extra class for a seat's i-th card; wild: the card codes drawn marked wild;
//   partUp(round, seat, part): whether a part of a wager still holds chips (default: the view's parts_up);
//   outLabel: what a seat that is out of the round shows when the view names no hand.
//   sceneClass: an extra class on the table scene, e.g. "felt-compact" (the stylesheet's smaller spots, for a
//       seat with many of them); bigMeters: the meter names drawn as the big prize ("meter-big"; default:
//       the meters GET /games flags big).
// A felt module sets the layout's own keys (dealer, handCardClass, outLabel, sceneClass); spots, partUp and
// bigMeters are there for a test's layout, a felt module leaves them to GET /games.

/** Spots for a game's wagers, in the order GET /games lists them: the main wager, then the side bets. A
 * wager drawn as parts (its equal bets, or a stake set aside with it) has a spot per part, keyed by the
 * settled name whose outcome colours it; a wager of a fixed amount is a coin. */
export function spotsFor(game) {
  const spots = [];
  for (const w of game.wagers || []) {
    const kind = w.main ? "main" : w.fixed_cents !== null && w.fixed_cents !== undefined ? "coin" : "side";
    if (w.parts && w.parts.length) {
      for (const p of w.parts) {
        const label = String(p.title || p.name).toUpperCase();
        spots.push({ key: p.settles, wager: w.name, part: p.name, label, kind, results: [p.settles] });
      }
    } else {
      spots.push({ key: w.name, wager: w.name, label: String(w.main ? "bet" : w.title || w.name).toUpperCase(), kind });
    }
  }
  return spots;
}

/** The meters drawn as the big prize ("meter-big"): those GET /games flags ``big``. */
export const bigMetersOf = (game) => (game.meters || []).filter((m) => m.big).map((m) => m.name);

/** Whether a part of a wager holds chips: the round's view lists each seat's parts still up (``parts_up``;
 * a seat it does not list has every part up). */
export function partUp(round, seat, part) {
  const up = round && round.parts_up ? round.parts_up[String(seat)] : null;
  return !up || up.includes(part);
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
    partUp: own.partUp || partUp,
    outLabel: own.outLabel || "OUT",
    sceneClass: own.sceneClass || "",
    bigMeters: own.bigMeters || bigMetersOf(game),
  };
}
