// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

/// ERC-6909 token ids of option series, one id per (type, start of exercise, expiry, strike)
/// within a pair. Layout, least significant bit first (see docs/PROTOCOL.md):
///   [0, 144)   strikeWad
///   [144, 184) expiryTimestamp
///   [184, 224) startExerciseTimestamp
///   [224, 232) optionType (0 call, 1 put)
///   [232, 256) zero, reserved
library OptionIds {
    error BadOptionType(uint8 optionType);

    function encode(uint8 optionType, uint144 strikeWad, uint40 expiryTimestamp, uint40 startExerciseTimestamp)
        internal
        pure
        returns (uint256)
    {
        require(optionType <= 1, BadOptionType(optionType));
        return (uint256(optionType) << 224) | (uint256(startExerciseTimestamp) << 184)
            | (uint256(expiryTimestamp) << 144) | uint256(strikeWad);
    }
}
