// The one narrator of a round's events: the table log while playing and the recall of a finished round both
// tell an event in these words. Names come from the context (who sits where) and GET /games (wager, meter
// and game titles); what happened comes from the event alone.

import { cardText, parseCode } from "./cards.js";
import { choiceText, escapeHtml, handName, money } from "./format.js";
import { actionLabel, gameOf, gameTitle, meterTitle, ownerName, seatName, wagerTitle } from "./state.js";

/** Cards as small inline text chips ("A♥" in red on white; a face-down card as a patterned back). */
export function miniCards(codes) {
  return `<span class="mini-cards">${(codes || [])
    .map((c) => {
      const p = parseCode(c);
      if (!p) return `<span class="mc back" title="face down"></span>`;
      return `<span class="mc ${p.red ? "red" : "black"}" data-card="${c}">${escapeHtml(cardText(c))}</span>`;
    })
    .join("")}</span>`;
}

/** Events the live log leaves out (the felt shows them); the recall tells every event. */
export const QUIET_LIVE = new Set(["card_dealt", "jackpot_contribution"]);

/**
 * The event ``e`` in words (HTML). ``ctx``: {game (key), occupants {seat: name}, ruleSummary (the server's words),
 * you (the viewer's seat at the live table, if any)}.
 */
export function narrate(e, ctx) {
  const game = ctx.game;
  const who = (seat) => escapeHtml(seatName(seat, ctx.occupants || {}));
  const owner = (o) => escapeHtml(ownerName(o, ctx.occupants || {}));
  switch (e.type) {
    case "round_started": {
      // the rules in words, as the server says them ("standard rules" or the changes), never the raw rule set
      const rules = ctx.ruleSummary || "";
      return `<b>Round ${e.round_no}</b> of ${escapeHtml(gameTitle(e.game || game))} opens${
        rules ? ` <span class="muted">(${escapeHtml(rules)})</span>` : ""
      }: place your bets.`;
    }
    case "wager_placed":
      return `${who(e.seat)} bets ${money(e.amount)} on ${escapeHtml(wagerTitle(game, e.wager))}${
        e.option ? ` (${escapeHtml(choiceText(e.option))})` : ""
      }`;
    case "jackpot_contribution":
      return `${who(e.seat)} adds ${money(e.amount)} to the ${escapeHtml(meterTitle(game, e.meter))} meter (now ${money(
        e.meter_after,
      )})`;
    case "card_dealt":
      return `Card #${e.position} to ${owner(e.to)} ${miniCards([e.card])} ${e.visible_to === "all" ? "face up" : "face down"}`;
    case "cards_revealed":
      return `${owner(e.owner)} shows ${miniCards(e.cards)}`;
    case "card_discarded":
      return `${owner(e.owner)} discards ${miniCards([e.card])}`;
    case "action":
      // the decision's words, cards counted from 1 as on the buttons (issue 24: "discard 0" after "card 1")
      return `${who(e.seat)}: <b>${escapeHtml(actionLabel(e.action, game))}</b>${e.by === "timeout" ? " — by timeout" : ""}`;
    case "hand":
      return `${owner(e.owner)}: ${escapeHtml(handName(e.hand))}`;
    case "settled":
      return `${who(e.seat)} ${escapeHtml(wagerTitle(game, e.wager) + (e.part ? ` ${e.part}` : ""))}: ${escapeHtml(e.outcome.replaceAll("-", " "))} ${money(e.returned - e.staked, {
        sign: true,
      })} <span class="muted">(staked ${money(e.staked)}, returned ${money(e.returned)}${
        e.detail ? `; ${escapeHtml(e.detail)}` : ""
      })</span>`;
    case "jackpot_hit":
      return `<b>JACKPOT</b> ${who(e.seat)} hits the ${escapeHtml(meterTitle(game, e.meter))}: ${money(e.amount)} (reset to ${money(
        e.reset_to,
      )})`;
    case "envy_paid":
      // a neighbour bonus: a seat paid for another seat's hand, titled by its game (GET /games)
      return `<b>${escapeHtml(gameOf(game).neighbour_bonus || "Bonus")}</b> ${who(e.seat)} is paid ${money(e.amount)} for ${who(e.from_seat)}'s ${escapeHtml(handName(e.hand))}`;
    case "round_ended": {
      // a player reads their own net (the house's means nothing to them); a recall or an auditor, the house's
      const mine = ctx.you !== null && ctx.you !== undefined ? (e.net_by_seat || {})[String(ctx.you)] : undefined;
      if (mine !== undefined) return `Round over · your net ${money(mine, { sign: true })}`;
      return e.house_net === undefined ? "Round over." : `Round over · house ${money(e.house_net, { sign: true })}`;
    }
    default:
      return escapeHtml(JSON.stringify(e));
  }
}
