// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

/// The part of OptionPair the helper drives.
interface IOptionPairBook {
    function placeOrder(uint256 id, bool isBuy, uint256 price, uint256 amount) external returns (uint256 orderId);
    function fillOrder(uint256 orderId, uint256 amount) external;
    function transfer(address receiver, uint256 id, uint256 amount) external returns (bool);
}

/// TEST HELPER, local nodes only (bench/indexer): makes a pair emit many events in one
/// transaction. Not part of the protocol and not built by dev/contract-artifacts.ts (which reads
/// only the top-level sources); bench/indexer compiles it on its own.
/// Each round places a buy order, fills it itself (the pair mints the option to this contract)
/// and passes 3 units to one of 64 receivers: OrderPlaced, Transfer (mint), OrderFilled, Transfer.
contract EventSpray {
    function spray(IOptionPairBook pair, uint256 rounds, uint256 salt) external {
        for (uint256 i = 0; i < rounds; i++) {
            uint256 n = salt + i;
            uint256 id = 1000 + (n % 8);
            uint256 orderId = pair.placeOrder(id, true, 1, 10);
            pair.fillOrder(orderId, 10);
            pair.transfer(address(uint160(0x10000 + (n % 64))), id, 3);
        }
    }
}
