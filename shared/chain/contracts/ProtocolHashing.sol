// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

import {Leg, TokenTriple, DutchPremium, DutchFillRequest, PackageOffer, ExclusiveFill, OrderIntent, DutchAward} from "./ProtocolTypes.sol";

/// EIP-712 struct hashes of the protocol types. The type strings must stay byte-identical to
/// the TypeScript definitions (shared/protocol/typed-data.ts); the chain tests compare both.
library ProtocolHashing {
    bytes32 internal constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");

    bytes internal constant LEG_TYPE =
        "Leg(address pair6909Contract,uint8 optionType,uint8 structure,uint40 startExerciseTimestamp,uint40 expiryTimestamp,uint144 strikeWad,uint256 amount)";
    bytes internal constant TOKEN_TRIPLE_TYPE = "TokenTriple(address token0,address token1,address premiumToken)";
    bytes internal constant DUTCH_PREMIUM_TYPE =
        "DutchPremium(address token,bool makerPaysTaker,uint256 startPremium,uint256 endPremium,uint256 decayRate,uint40 auctionStart)";

    bytes32 internal constant LEG_TYPEHASH = keccak256(LEG_TYPE);
    bytes32 internal constant TOKEN_TRIPLE_TYPEHASH = keccak256(TOKEN_TRIPLE_TYPE);
    bytes32 internal constant DUTCH_PREMIUM_TYPEHASH = keccak256(DUTCH_PREMIUM_TYPE);
    // Referenced types follow the primary type in alphabetical order (EIP-712 encodeType).
    bytes32 internal constant DUTCH_FILL_REQUEST_TYPEHASH = keccak256(
        abi.encodePacked(
            "DutchFillRequest(Leg[] intents,TokenTriple[] tokens,DutchPremium dutchPremium,uint40 auctionEnd,bytes32 makerAddressHash,uint256 takerNonce,address requiredAuthority,address requiredDutchAuthority,address referrer)",
            DUTCH_PREMIUM_TYPE,
            LEG_TYPE,
            TOKEN_TRIPLE_TYPE
        )
    );
    bytes32 internal constant PACKAGE_OFFER_TYPEHASH = keccak256(
        abi.encodePacked(
            "PackageOffer(bytes32 takerAddressHash,Leg[] legs,uint256 packagePremium,bool makerPaysTaker,address premiumToken,address maker,uint256 nonce,uint40 deadline)",
            LEG_TYPE
        )
    );
    bytes32 internal constant EXCLUSIVE_FILL_TYPEHASH = keccak256(
        "ExclusiveFill(bytes32 exclusiveFillId,address maker,bytes32[] orderIds,address rewardDestination,bytes32 intentDataHash,uint40 expireTime)"
    );

    bytes32 internal constant ORDER_INTENT_TYPEHASH = keccak256(
        "OrderIntent(address from,address to,uint64 noncePrefix,uint256 nonce,address options6909Contract,uint256 amount,uint256 fillerRewardMaxPerMintedUnit,uint256 fillerRewardMinPerMintedUnit,uint8 optionType,uint40 startExecutionTimestamp,uint40 expiryTimestamp,uint256 premiumStart,uint256 premiumEnd,uint32 premiumDecayRateBpsPerSecond,uint144 strikeStart,uint144 strikeEnd,uint32 strikeDecayRateBpsPerSecond,uint256 startMinFill,uint256 minFillDecayRatePerSecond,uint8 buyOrSell,uint40 intentStartTime,uint40 intentExpiry,uint8 orderOnExpiry)"
    );

    bytes32 internal constant DUTCH_AWARD_TYPEHASH = keccak256(
        "DutchAward(bytes32 requestDigest,address filler,uint256 improvementBps,uint40 notBefore,uint40 exclusiveEnd)"
    );

    function domainSeparator(string memory name, string memory version) internal view returns (bytes32) {
        return keccak256(
            abi.encode(DOMAIN_TYPEHASH, keccak256(bytes(name)), keccak256(bytes(version)), block.chainid, address(this))
        );
    }

    function toTypedDataHash(bytes32 domain, bytes32 structHash) internal pure returns (bytes32) {
        return keccak256(abi.encodePacked(hex"1901", domain, structHash));
    }

    function hashLeg(Leg calldata l) internal pure returns (bytes32) {
        return keccak256(
            abi.encode(
                LEG_TYPEHASH,
                l.pair6909Contract,
                l.optionType,
                l.structure,
                l.startExerciseTimestamp,
                l.expiryTimestamp,
                l.strikeWad,
                l.amount
            )
        );
    }

    function hashLegs(Leg[] calldata legs) internal pure returns (bytes32) {
        bytes32[] memory hashes = new bytes32[](legs.length);
        for (uint256 i = 0; i < legs.length; i++) {
            hashes[i] = hashLeg(legs[i]);
        }
        return keccak256(abi.encodePacked(hashes));
    }

    function hashTokenTriples(TokenTriple[] calldata tokens) internal pure returns (bytes32) {
        bytes32[] memory hashes = new bytes32[](tokens.length);
        for (uint256 i = 0; i < tokens.length; i++) {
            hashes[i] = keccak256(
                abi.encode(TOKEN_TRIPLE_TYPEHASH, tokens[i].token0, tokens[i].token1, tokens[i].premiumToken)
            );
        }
        return keccak256(abi.encodePacked(hashes));
    }

    function hashDutchPremium(DutchPremium calldata p) internal pure returns (bytes32) {
        return keccak256(
            abi.encode(
                DUTCH_PREMIUM_TYPEHASH,
                p.token,
                p.makerPaysTaker,
                p.startPremium,
                p.endPremium,
                p.decayRate,
                p.auctionStart
            )
        );
    }

    function hashDutchFillRequest(DutchFillRequest calldata r) internal pure returns (bytes32) {
        // Nested hashes first, in their own frames, to keep the stack shallow.
        bytes memory head = abi.encode(
            DUTCH_FILL_REQUEST_TYPEHASH, hashLegs(r.intents), hashTokenTriples(r.tokens), hashDutchPremium(r.dutchPremium)
        );
        bytes memory tail = abi.encode(
            r.auctionEnd, r.makerAddressHash, r.takerNonce, r.requiredAuthority, r.requiredDutchAuthority, r.referrer
        );
        return keccak256(bytes.concat(head, tail));
    }

    function hashPackageOffer(PackageOffer calldata o) internal pure returns (bytes32) {
        bytes memory head = abi.encode(PACKAGE_OFFER_TYPEHASH, o.takerAddressHash, hashLegs(o.legs), o.packagePremium);
        bytes memory tail = abi.encode(o.makerPaysTaker, o.premiumToken, o.maker, o.nonce, o.deadline);
        return keccak256(bytes.concat(head, tail));
    }

    function hashExclusiveFill(ExclusiveFill calldata f) internal pure returns (bytes32) {
        return keccak256(
            abi.encode(
                EXCLUSIVE_FILL_TYPEHASH,
                f.exclusiveFillId,
                f.maker,
                keccak256(abi.encodePacked(f.orderIds)),
                f.rewardDestination,
                f.intentDataHash,
                f.expireTime
            )
        );
    }

    /// The order's intent hash (EIP-712 hashStruct), encoded in three frames to keep the stack shallow.
    function hashOrderIntent(OrderIntent calldata o) internal pure returns (bytes32) {
        bytes memory head = abi.encode(
            ORDER_INTENT_TYPEHASH, o.from, o.to, o.noncePrefix, o.nonce, o.options6909Contract, o.amount, o.fillerRewardMaxPerMintedUnit
        );
        bytes memory mid = abi.encode(
            o.fillerRewardMinPerMintedUnit,
            o.optionType,
            o.startExecutionTimestamp,
            o.expiryTimestamp,
            o.premiumStart,
            o.premiumEnd,
            o.premiumDecayRateBpsPerSecond,
            o.strikeStart
        );
        bytes memory tail = abi.encode(
            o.strikeEnd,
            o.strikeDecayRateBpsPerSecond,
            o.startMinFill,
            o.minFillDecayRatePerSecond,
            o.buyOrSell,
            o.intentStartTime,
            o.intentExpiry,
            o.orderOnExpiry
        );
        return keccak256(bytes.concat(head, mid, tail));
    }

    /// What an exclusive fill's intentDataHash commits to: the intent hashes of its orders, in order.
    function hashIntentData(OrderIntent[] calldata intents) internal pure returns (bytes32) {
        bytes32[] memory hashes = new bytes32[](intents.length);
        for (uint256 i = 0; i < intents.length; i++) {
            hashes[i] = hashOrderIntent(intents[i]);
        }
        return keccak256(abi.encodePacked(hashes));
    }

    function hashDutchAward(DutchAward calldata a) internal pure returns (bytes32) {
        return keccak256(
            abi.encode(DUTCH_AWARD_TYPEHASH, a.requestDigest, a.filler, a.improvementBps, a.notBefore, a.exclusiveEnd)
        );
    }
}
