// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

import {OptionPair} from "./OptionPair.sol";

/// Creates one OptionPair per (token0, token1, premium token). CREATE2 with the triple as salt
/// gives every pair an address that depends only on the factory and the triple.
contract PairFactory {
    address public immutable mothership;
    mapping(bytes32 key => address) private pairs;
    address[] public allPairs;

    event PairCreated(address indexed pair, address token0, address token1, address premiumToken);

    error PairExists(address pair);
    error SameTokens();

    constructor(address mothership_) {
        mothership = mothership_;
    }

    function createPair(address token0, address token1, address premiumToken) external returns (address pair) {
        require(token0 != token1, SameTokens());
        bytes32 key = keccak256(abi.encode(token0, token1, premiumToken));
        require(pairs[key] == address(0), PairExists(pairs[key]));
        pair = address(new OptionPair{salt: key}(token0, token1, premiumToken, mothership));
        pairs[key] = pair;
        allPairs.push(pair);
        emit PairCreated(pair, token0, token1, premiumToken);
    }

    function getPair(address token0, address token1, address premiumToken) external view returns (address) {
        return pairs[keccak256(abi.encode(token0, token1, premiumToken))];
    }

    function allPairsLength() external view returns (uint256) {
        return allPairs.length;
    }
}
