// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

import {DutchPremium} from "./ProtocolTypes.sol";

/// The Dutch premium curve and the price improvement of a bid, in exact integer arithmetic.
/// shared/protocol/dutch-curve.ts mirrors both; the chain tests compare them on random inputs.
library DutchCurve {
    uint256 internal constant BPS = 10_000;

    /// The premium at time `at`: `startPremium` until `auctionStart`, `endPremium` from
    /// `auctionEnd` on, and in between a move from start toward end of `decayRate` premium
    /// units per second (capped at the end premium), or, when `decayRate` is 0, the straight
    /// line from (auctionStart, startPremium) to (auctionEnd, endPremium), rounded toward start.
    function premiumAt(DutchPremium calldata p, uint40 auctionEnd, uint256 at) internal pure returns (uint256) {
        if (at <= p.auctionStart) return p.startPremium;
        if (at >= auctionEnd) return p.endPremium;
        uint256 gap = p.startPremium > p.endPremium ? p.startPremium - p.endPremium : p.endPremium - p.startPremium;
        uint256 elapsed = at - p.auctionStart;
        uint256 moved;
        if (p.decayRate == 0) {
            uint256 span = uint256(auctionEnd) - p.auctionStart;
            // floor(gap * elapsed / span) without the product overflowing.
            moved = (gap / span) * elapsed + ((gap % span) * elapsed) / span;
        } else if (p.decayRate > gap / elapsed) {
            moved = gap;
        } else {
            moved = p.decayRate * elapsed;
        }
        return p.startPremium > p.endPremium ? p.startPremium - moved : p.startPremium + moved;
    }

    /// The premium improved for the taker by `bps`: more received when the maker pays, less
    /// paid otherwise; rounded in the maker's favour.
    function improved(uint256 premium, bool makerPaysTaker, uint256 bps) internal pure returns (uint256) {
        uint256 factor = makerPaysTaker ? BPS + bps : BPS - bps;
        return (premium / BPS) * factor + ((premium % BPS) * factor) / BPS;
    }
}
