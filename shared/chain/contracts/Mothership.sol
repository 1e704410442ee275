// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

import {Leg, DutchFillRequest, PackageOffer, ExclusiveFill} from "./ProtocolTypes.sol";
import {ProtocolHashing} from "./ProtocolHashing.sol";
import {OptionIds} from "./OptionIds.sol";

interface IOptionMinter {
    function mint(address to, uint256 id, uint256 amount) external;
}

/// Reference mothership: the hashes and digests the API computes, and fixed-package settlement.
/// It checks what binds a quote (maker signature, taker hash, nonce, deadline) and mints the
/// long side of every leg on its pair. It moves no premium or collateral: it is the local
/// stand-in for the real contract and the fixture for the indexer, not a product.
contract Mothership {
    string public constant OFFER_DOMAIN_NAME = "Mothership";
    string public constant DUTCH_DOMAIN_NAME = "DutchFill";
    string public constant EXCLUSIVE_FILL_DOMAIN_NAME = "ExclusiveFill";
    string public constant DOMAIN_VERSION = "1";

    /// secp256k1 n / 2: signatures with a higher s are malleable copies and are refused.
    uint256 private constant HALF_ORDER = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    mapping(address maker => mapping(uint256 nonce => bool)) public nonceUsed;

    /// May register and revoke service signers; the deployer.
    address public owner;
    /// Keys of the off-chain service whose signatures this contract accepts where the protocol
    /// needs the service's word (Dutch awards, exclusive fills). A request naming the mothership
    /// as its authority accepts any registered signer.
    mapping(address signer => bool) public isServiceSigner;

    event ServiceSignerSet(address indexed signer, bool allowed);

    event PackageExecuted(
        bytes32 indexed takerAddressHash,
        address indexed maker,
        address indexed taker,
        bytes32 offerDigest,
        address premiumToken,
        uint256 packagePremium,
        bool makerPaysTaker,
        uint256 nonce,
        address referrer,
        uint8[] directions
    );

    error OfferExpired(uint40 deadline);
    error NoLegs();
    error LegCountMismatch(uint256 legs, uint256 directions);
    error BadDirection(uint256 leg);
    error OptionExpired(uint256 leg);
    error TakerHashMismatch(bytes32 expected, bytes32 computed);
    error BadSignature();
    error WrongSigner(address expected, address recovered);
    error NonceAlreadyUsed(address maker, uint256 nonce);
    error NotOwner(address caller);
    error ZeroSigner();

    constructor() {
        owner = msg.sender;
    }

    /// Registers (`allowed`) or revokes a service signer.
    function setServiceSigner(address signer, bool allowed) external {
        require(msg.sender == owner, NotOwner(msg.sender));
        require(signer != address(0), ZeroSigner());
        isServiceSigner[signer] = allowed;
        emit ServiceSignerSet(signer, allowed);
    }

    /// keccak256(abi.encode(address, bytes32, uint8[], address)).
    function takerAddressHash(address taker, bytes32 salt, uint8[] calldata directions, address referrer)
        public
        pure
        returns (bytes32)
    {
        return keccak256(abi.encode(taker, salt, directions, referrer));
    }

    /// keccak256(abi.encode(uint8[])).
    function directionsHash(uint8[] calldata directions) external pure returns (bytes32) {
        return keccak256(abi.encode(directions));
    }

    function optionId(uint8 optionType, uint144 strikeWad, uint40 expiryTimestamp, uint40 startExerciseTimestamp)
        external
        pure
        returns (uint256)
    {
        return OptionIds.encode(optionType, strikeWad, expiryTimestamp, startExerciseTimestamp);
    }

    function digestDutchFillRequest(DutchFillRequest calldata request) external view returns (bytes32) {
        return ProtocolHashing.toTypedDataHash(
            ProtocolHashing.domainSeparator(DUTCH_DOMAIN_NAME, DOMAIN_VERSION),
            ProtocolHashing.hashDutchFillRequest(request)
        );
    }

    function digestPackageOffer(PackageOffer calldata offer) public view returns (bytes32) {
        return ProtocolHashing.toTypedDataHash(
            ProtocolHashing.domainSeparator(OFFER_DOMAIN_NAME, DOMAIN_VERSION), ProtocolHashing.hashPackageOffer(offer)
        );
    }

    function digestExclusiveFill(ExclusiveFill calldata fill) external view returns (bytes32) {
        return ProtocolHashing.toTypedDataHash(
            ProtocolHashing.domainSeparator(EXCLUSIVE_FILL_DOMAIN_NAME, DOMAIN_VERSION),
            ProtocolHashing.hashExclusiveFill(fill)
        );
    }

    /// Settles a maker's signed package offer; the caller is the taker. The taker proves the
    /// offer is theirs by reproducing `takerAddressHash` from msg.sender, the quote's salt, the
    /// per-leg directions and the referrer.
    function executeFixedPackageIntent(
        PackageOffer calldata offer,
        bytes calldata makerSignature,
        bytes32 takerSalt,
        uint8[] calldata directions,
        address referrer
    ) external {
        require(block.timestamp <= offer.deadline, OfferExpired(offer.deadline));
        require(offer.legs.length > 0, NoLegs());
        require(offer.legs.length == directions.length, LegCountMismatch(offer.legs.length, directions.length));
        bytes32 computed = takerAddressHash(msg.sender, takerSalt, directions, referrer);
        require(computed == offer.takerAddressHash, TakerHashMismatch(offer.takerAddressHash, computed));

        bytes32 digest = digestPackageOffer(offer);
        address signer = _recover(digest, makerSignature);
        require(signer == offer.maker, WrongSigner(offer.maker, signer));
        require(!nonceUsed[offer.maker][offer.nonce], NonceAlreadyUsed(offer.maker, offer.nonce));
        nonceUsed[offer.maker][offer.nonce] = true;

        for (uint256 i = 0; i < offer.legs.length; i++) {
            _mintLong(offer.legs[i], i, directions[i], offer.maker);
        }
        _emitExecuted(offer, digest, directions, referrer);
    }

    /// Its own frame: the event has too many fields for the settlement function's stack.
    function _emitExecuted(PackageOffer calldata offer, bytes32 digest, uint8[] calldata directions, address referrer)
        private
    {
        emit PackageExecuted(
            offer.takerAddressHash,
            offer.maker,
            msg.sender,
            digest,
            offer.premiumToken,
            offer.packagePremium,
            offer.makerPaysTaker,
            offer.nonce,
            referrer,
            directions
        );
    }

    /// Direction 1 (Sell) leaves the taker long the option, 0 (Buy) leaves the maker long.
    function _mintLong(Leg calldata leg, uint256 index, uint8 direction, address maker) private {
        require(direction <= 1, BadDirection(index));
        require(leg.expiryTimestamp > block.timestamp, OptionExpired(index));
        uint256 id = OptionIds.encode(leg.optionType, leg.strikeWad, leg.expiryTimestamp, leg.startExerciseTimestamp);
        IOptionMinter(leg.pair6909Contract).mint(direction == 1 ? msg.sender : maker, id, leg.amount);
    }

    function _recover(bytes32 digest, bytes calldata signature) private pure returns (address) {
        require(signature.length == 65, BadSignature());
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (v < 27) v += 27;
        require(uint256(s) <= HALF_ORDER && (v == 27 || v == 28), BadSignature());
        address signer = ecrecover(digest, v, r, s);
        require(signer != address(0), BadSignature());
        return signer;
    }
}
