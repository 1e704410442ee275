// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

/// A fill authority (the "KYC" case of a Dutch request's `requiredAuthority`): the mothership
/// lets `filler` call executeDutchFill on a request naming this authority only when it answers
/// true. The API asks the same question before it accepts a bid (docs/DUTCH.md).
interface IFillAuthority {
    function isAllowedFiller(address filler) external view returns (bool);
}

/// Reference fill authority: an allowlist its owner keeps. Stands in for a real venue's KYC
/// registry on the devchain and in tests.
contract AllowlistFillAuthority is IFillAuthority {
    /// May allow and disallow fillers; the deployer.
    address public owner;
    mapping(address filler => bool) public allowed;

    event FillerAllowed(address indexed filler);
    event FillerDisallowed(address indexed filler);

    error NotOwner(address caller);
    error ZeroFiller();

    constructor() {
        owner = msg.sender;
    }

    function allowFiller(address filler) external {
        require(msg.sender == owner, NotOwner(msg.sender));
        require(filler != address(0), ZeroFiller());
        allowed[filler] = true;
        emit FillerAllowed(filler);
    }

    function disallowFiller(address filler) external {
        require(msg.sender == owner, NotOwner(msg.sender));
        allowed[filler] = false;
        emit FillerDisallowed(filler);
    }

    function isAllowedFiller(address filler) external view returns (bool) {
        return allowed[filler];
    }
}
