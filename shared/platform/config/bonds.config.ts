import { envInt } from './schema-helpers';

/** Dutch winners that let their exclusive window pass without filling (docs/DUTCH.md, "Fades"). */
export const bondsEnv = {
  /** Fades within DUTCH_FADE_WINDOW that block an organization's Dutch bids. */
  DUTCH_FADE_LIMIT: envInt(3, 1, 1000),
  /** The window, in seconds, in which DUTCH_FADE_LIMIT fades block; a fade counts from its exclusive window's end. */
  DUTCH_FADE_WINDOW: envInt(86400, 60, 31_536_000),
  /** How long, in seconds after the fade that reached the limit, the organization's bids are refused. */
  DUTCH_FADE_COOLDOWN: envInt(3600, 1, 31_536_000),
  /**
   * How long, in seconds after an exclusive fill expired unused, its maker's organization may not
   * take a fill over any of the same orders again (docs/ORDERS.md, "Exclusive fills").
   */
  EXCLUSIVE_FILL_RETAKE_COOLDOWN: envInt(3600, 0, 31_536_000),
  /**
   * Dutch windows a taker made impossible to fill (its premium balance or allowance short when
   * the window ended) within DUTCH_TAKER_UNFILLABLE_WINDOW that refuse its new Dutch auctions, by
   * taker address and by the delegate's taker organization (docs/DUTCH.md, "Unfillable takers").
   */
  DUTCH_TAKER_UNFILLABLE_LIMIT: envInt(3, 1, 1000),
  /** The window, in seconds, in which DUTCH_TAKER_UNFILLABLE_LIMIT such windows refuse; each counts from its window's end. */
  DUTCH_TAKER_UNFILLABLE_WINDOW: envInt(86400, 60, 31_536_000),
  /** How long, in seconds after the window that reached the limit, the taker's new Dutch auctions are refused. */
  DUTCH_TAKER_UNFILLABLE_COOLDOWN: envInt(86400, 1, 31_536_000),
};
