// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

interface IERC20Minimal {
    function transfer(address to, uint256 value) external returns (bool);
    function transferFrom(address from, address to, uint256 value) external returns (bool);
}

/// Holds maker bonds per token. The API reads `bondOf` to check the fill bond minimum before
/// issuing an exclusive fill; nothing here slashes (the real protocol's concern).
contract BondVault {
    mapping(address maker => mapping(address token => uint256)) public bondOf;

    event BondDeposited(address indexed maker, address indexed token, uint256 amount, uint256 balance);
    event BondWithdrawn(address indexed maker, address indexed token, uint256 amount, uint256 balance);

    error InsufficientBond(address maker, address token, uint256 balance, uint256 needed);
    error TokenTransferFailed(address token);

    function deposit(address token, uint256 amount) external {
        _call(token, abi.encodeCall(IERC20Minimal.transferFrom, (msg.sender, address(this), amount)));
        uint256 balance = bondOf[msg.sender][token] + amount;
        bondOf[msg.sender][token] = balance;
        emit BondDeposited(msg.sender, token, amount, balance);
    }

    function withdraw(address token, uint256 amount) external {
        uint256 balance = bondOf[msg.sender][token];
        require(balance >= amount, InsufficientBond(msg.sender, token, balance, amount));
        bondOf[msg.sender][token] = balance - amount;
        _call(token, abi.encodeCall(IERC20Minimal.transfer, (msg.sender, amount)));
        emit BondWithdrawn(msg.sender, token, amount, balance - amount);
    }

    /// Accepts tokens that return true or nothing; anything else is a failed transfer.
    function _call(address token, bytes memory data) private {
        (bool ok, bytes memory ret) = token.call(data);
        require(ok && (ret.length == 0 || abi.decode(ret, (bool))) && token.code.length > 0, TokenTransferFailed(token));
    }
}
