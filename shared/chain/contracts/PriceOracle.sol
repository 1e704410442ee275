// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

interface IERC20Decimals {
    function decimals() external view returns (uint8);
}

/// Reference price source for the lending market: one price per token, set by its owner (a
/// keeper or a feed relay in a real deployment). A price is the value of one whole token in
/// USD, 18 decimals; the token's decimals are read once and carried in the event so readers
/// can value raw amounts without another call.
contract PriceOracle {
    address public immutable owner;
    mapping(address token => uint256) public priceWad;
    mapping(address token => uint8) public decimalsOf;

    event PriceUpdated(address indexed token, uint256 priceWad, uint8 decimals);

    error NotOwner();
    error ZeroPrice(address token);
    error NoPrice(address token);

    constructor() {
        owner = msg.sender;
    }

    function setPrice(address token, uint256 price) external {
        require(msg.sender == owner, NotOwner());
        require(price > 0, ZeroPrice(token));
        uint8 d = IERC20Decimals(token).decimals();
        priceWad[token] = price;
        decimalsOf[token] = d;
        emit PriceUpdated(token, price, d);
    }

    /// USD value (18 decimals) of `amount` raw units of `token`.
    function valueOf(address token, uint256 amount) external view returns (uint256) {
        uint256 p = priceWad[token];
        require(p > 0, NoPrice(token));
        return (amount * p) / (10 ** decimalsOf[token]);
    }
}
