// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

interface IERC20Minimal {
    function transfer(address to, uint256 value) external returns (bool);
    function transferFrom(address from, address to, uint256 value) external returns (bool);
}

/// Holds maker bonds per token. The API reads the indexed bond (balance minus any pending
/// withdrawal) to check the fill bond minimum before issuing an exclusive fill or taking a Dutch
/// bid; nothing here slashes (the real protocol's concern). Taking bond out is two steps:
/// `requestWithdrawal` announces an amount, which leaves the available bond at once and becomes
/// withdrawable `withdrawalDelay` seconds later; `withdraw` then pays it out. The delay is at
/// least the longest exclusive window the API grants, so a bond the API counted when it granted
/// one is still in the vault when that window ends.
contract BondVault {
    /// Seconds between a withdrawal request and the earliest `withdraw` of it; fixed at deployment.
    uint256 public immutable withdrawalDelay;

    mapping(address maker => mapping(address token => uint256)) public bondOf;
    /// The amount a maker asked to take out (0: none), part of `bondOf` until withdrawn.
    mapping(address maker => mapping(address token => uint256)) public pendingWithdrawal;
    /// When the pending amount becomes withdrawable (unix seconds; 0: none pending).
    mapping(address maker => mapping(address token => uint256)) public withdrawableAt;

    event BondDeposited(address indexed maker, address indexed token, uint256 amount, uint256 balance);
    /// `amount` is the whole pending amount from now on (a request replaces the earlier one; 0 cancels it).
    event BondWithdrawalRequested(address indexed maker, address indexed token, uint256 amount, uint256 balance, uint256 withdrawableAt);
    event BondWithdrawn(address indexed maker, address indexed token, uint256 amount, uint256 balance);

    error InsufficientBond(address maker, address token, uint256 balance, uint256 needed);
    error NoPendingWithdrawal(address maker, address token);
    error WithdrawalNotReady(address maker, address token, uint256 withdrawableAt);
    error TokenTransferFailed(address token);

    constructor(uint256 withdrawalDelay_) {
        withdrawalDelay = withdrawalDelay_;
    }

    function deposit(address token, uint256 amount) external {
        _call(token, abi.encodeCall(IERC20Minimal.transferFrom, (msg.sender, address(this), amount)));
        uint256 balance = bondOf[msg.sender][token] + amount;
        bondOf[msg.sender][token] = balance;
        emit BondDeposited(msg.sender, token, amount, balance);
    }

    /// Announces that `amount` of the bond will be taken out; it is withdrawable after the delay.
    /// A new request replaces the pending one and restarts the delay; `amount` 0 cancels it.
    function requestWithdrawal(address token, uint256 amount) external {
        uint256 balance = bondOf[msg.sender][token];
        require(balance >= amount, InsufficientBond(msg.sender, token, balance, amount));
        uint256 at = amount == 0 ? 0 : block.timestamp + withdrawalDelay;
        pendingWithdrawal[msg.sender][token] = amount;
        withdrawableAt[msg.sender][token] = at;
        emit BondWithdrawalRequested(msg.sender, token, amount, balance, at);
    }

    /// Pays out the pending amount once its delay has passed.
    function withdraw(address token) external {
        uint256 amount = pendingWithdrawal[msg.sender][token];
        require(amount > 0, NoPendingWithdrawal(msg.sender, token));
        uint256 at = withdrawableAt[msg.sender][token];
        require(block.timestamp >= at, WithdrawalNotReady(msg.sender, token, at));
        uint256 balance = bondOf[msg.sender][token] - amount;
        bondOf[msg.sender][token] = balance;
        pendingWithdrawal[msg.sender][token] = 0;
        withdrawableAt[msg.sender][token] = 0;
        _call(token, abi.encodeCall(IERC20Minimal.transfer, (msg.sender, amount)));
        emit BondWithdrawn(msg.sender, token, amount, balance);
    }

    /// Accepts tokens that return true or nothing; anything else is a failed transfer.
    function _call(address token, bytes memory data) private {
        (bool ok, bytes memory ret) = token.call(data);
        require(ok && (ret.length == 0 || abi.decode(ret, (bool))) && token.code.length > 0, TokenTransferFailed(token));
    }
}
