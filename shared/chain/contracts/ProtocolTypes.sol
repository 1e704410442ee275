// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

/// One option leg as signed in typed data. Mirrors `Leg` in shared/protocol/typed-data.ts;
/// field order is part of the EIP-712 type string, so never reorder.
struct Leg {
    address pair6909Contract;
    uint8 optionType; // 0 call, 1 put
    uint8 structure; // 0 follows the quote polarity, 1 flips this leg
    uint40 startExerciseTimestamp; // 0 American, == expiry European
    uint40 expiryTimestamp;
    uint144 strikeWad;
    uint256 amount;
}

struct TokenTriple {
    address token0;
    address token1;
    address premiumToken;
}

struct DutchPremium {
    address token;
    bool makerPaysTaker;
    uint256 startPremium;
    uint256 endPremium;
    uint256 decayRate;
    uint40 auctionStart;
}

/// The taker-signed Dutch auction request (domain "DutchFill", version "1").
struct DutchFillRequest {
    Leg[] intents;
    TokenTriple[] tokens;
    DutchPremium dutchPremium;
    uint40 auctionEnd;
    bytes32 makerAddressHash;
    uint256 takerNonce;
    address requiredAuthority;
    address requiredDutchAuthority;
    address referrer;
}

/// The maker-signed package offer (domain "Mothership", version "1").
struct PackageOffer {
    bytes32 takerAddressHash;
    Leg[] legs;
    uint256 packagePremium;
    bool makerPaysTaker;
    address premiumToken;
    address maker;
    uint256 nonce;
    uint40 deadline;
}

/// The API-signed exclusive fill (domain "ExclusiveFill", version "1").
struct ExclusiveFill {
    bytes32 exclusiveFillId;
    address maker;
    bytes32[] orderIds;
    address rewardDestination;
    bytes32 intentDataHash;
    uint40 expireTime;
}

/// A CLOB order as the API records it (`POST /api/orders`), flattened in the order of the
/// request's fields. Its EIP-712 struct hash is the order's intent hash: the key that matches
/// an API order to the chain's events. Mirrors ORDER_INTENT_TYPES in shared/protocol/order-intent.ts.
struct OrderIntent {
    address from; // destination.from: the owner
    address to; // destination.to: the CLOB or the mothership
    uint64 noncePrefix; // destination.nonce.prefix
    uint256 nonce; // destination.nonce.nonce
    address options6909Contract; // data.options6909Contract: the pair (CLOB)
    uint256 amount;
    uint256 fillerRewardMaxPerMintedUnit;
    uint256 fillerRewardMinPerMintedUnit;
    uint8 optionType; // data.pairKey
    uint40 startExecutionTimestamp;
    uint40 expiryTimestamp;
    uint256 premiumStart; // data.decayPremium
    uint256 premiumEnd;
    uint32 premiumDecayRateBpsPerSecond;
    uint144 strikeStart; // data.decayStrike
    uint144 strikeEnd;
    uint32 strikeDecayRateBpsPerSecond;
    uint256 startMinFill; // data.decayMinFill
    uint256 minFillDecayRatePerSecond;
    uint8 buyOrSell; // 0 Buy, 1 Sell
    uint40 intentStartTime;
    uint40 intentExpiry;
    uint8 orderOnExpiry; // 0 leaves the book at intentExpiry, 1 rests until the option expires
}

/// The auctioneer's word on a Dutch request (domain "DutchFill", version "1"), signed by a
/// registered service signer at the end of the competition. `filler` is the address the
/// winning bid named to call executeDutchFill (by default the winning maker's wallet): during
/// the exclusive window only that caller fills at the winner's price. Zero means no bid won
/// and the request is open to every filler from `notBefore` on.
struct DutchAward {
    bytes32 requestDigest;
    address filler;
    uint256 improvementBps;
    uint40 notBefore;
    uint40 exclusiveEnd;
}
