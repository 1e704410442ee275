// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

import {Leg, DutchFillRequest, DutchPremium, DutchAward, PackageOffer, ExclusiveFill} from "./ProtocolTypes.sol";
import {DutchCurve} from "./DutchCurve.sol";
import {ProtocolHashing} from "./ProtocolHashing.sol";
import {OptionIds} from "./OptionIds.sol";
import {IFillAuthority} from "./FillAuthority.sol";

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

    /// Dutch requests filled, per taker and nonce: each signed request settles once.
    mapping(address taker => mapping(uint256 nonce => bool)) public dutchNonceUsed;
    /// What a filler other than the award's winner must add to the winner's improvement while
    /// the award is exclusive (the sniping rule, docs/DUTCH.md). Set by the owner.
    uint256 public dutchOverrideBps = 100;

    event DutchOverrideBpsSet(uint256 bps);

    /// A Dutch request filled: `requestDigest` is its EIP-712 digest (what the API keys the
    /// quote by); `premium` is the curve price at the block, improved by the filler's terms.
    event DutchFilled(
        bytes32 indexed requestDigest,
        address indexed taker,
        address indexed filler,
        uint256 takerNonce,
        address premiumToken,
        uint256 premium,
        bool makerPaysTaker,
        bool exclusive,
        address referrer,
        uint8[] directions
    );

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
    error AuctionOver(uint40 auctionEnd);
    error DirectionsMismatch(bytes32 expected, bytes32 computed);
    error DutchNonceUsed(address taker, uint256 nonce);
    error AuthorityRequired(address authority);
    error AwardMismatch(bytes32 expected, bytes32 awarded);
    error AwardNotYet(uint40 notBefore);
    error NotAuctioneer(address signer);
    error BadBps(uint256 bps);

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

    /// Sets the sniping override (at most 10,000 bps).
    function setDutchOverrideBps(uint256 bps) external {
        require(msg.sender == owner, NotOwner(msg.sender));
        require(bps <= DutchCurve.BPS, BadBps(bps));
        dutchOverrideBps = bps;
        emit DutchOverrideBpsSet(bps);
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

    function digestDutchFillRequest(DutchFillRequest calldata request) public view returns (bytes32) {
        return ProtocolHashing.toTypedDataHash(
            ProtocolHashing.domainSeparator(DUTCH_DOMAIN_NAME, DOMAIN_VERSION),
            ProtocolHashing.hashDutchFillRequest(request)
        );
    }

    function digestDutchAward(DutchAward calldata award) public view returns (bytes32) {
        return ProtocolHashing.toTypedDataHash(
            ProtocolHashing.domainSeparator(DUTCH_DOMAIN_NAME, DOMAIN_VERSION), ProtocolHashing.hashDutchAward(award)
        );
    }

    /// The Dutch premium at unix time `at` (the curve of docs/DUTCH.md).
    function dutchPremiumAt(DutchPremium calldata premium, uint40 auctionEnd, uint256 at) external pure returns (uint256) {
        return DutchCurve.premiumAt(premium, auctionEnd, at);
    }

    /// `premium` improved for the taker by `bps`.
    function dutchImproved(uint256 premium, bool makerPaysTaker, uint256 bps) external pure returns (uint256) {
        require(bps <= DutchCurve.BPS, BadBps(bps));
        return DutchCurve.improved(premium, makerPaysTaker, bps);
    }

    /// Fills a taker-signed Dutch request; the caller is the filler (a maker). The taker is
    /// whoever signed the request. `award` is the auctioneer's signed word from the end of the
    /// competition: while it is exclusive, the filler it names (msg.sender == award.filler)
    /// fills at the curve improved by the winning bid, anyone else only by adding
    /// dutchOverrideBps to it; after it, anyone fills at the curve price. A request naming a
    /// fill authority is filled only by callers that authority allows.
    function executeDutchFill(
        DutchFillRequest calldata request,
        bytes calldata takerSignature,
        uint8[] calldata directions,
        DutchAward calldata award,
        bytes calldata awardSignature
    ) external {
        bytes32 digest = digestDutchFillRequest(request);
        address taker = _recover(digest, takerSignature);
        _checkDutchRequest(request, directions, taker);
        _checkAward(request, digest, award, awardSignature);
        (uint256 premium, bool exclusive) = _dutchPrice(request, award);
        dutchNonceUsed[taker][request.takerNonce] = true;
        for (uint256 i = 0; i < request.intents.length; i++) {
            _mintTo(request.intents[i], i, directions[i], taker, msg.sender);
        }
        _emitDutchFilled(request, digest, taker, premium, exclusive, directions);
    }

    /// Its own frame: the event has too many fields for the fill function's stack.
    function _emitDutchFilled(
        DutchFillRequest calldata request,
        bytes32 digest,
        address taker,
        uint256 premium,
        bool exclusive,
        uint8[] calldata directions
    ) private {
        emit DutchFilled(
            digest,
            taker,
            msg.sender,
            request.takerNonce,
            request.dutchPremium.token,
            premium,
            request.dutchPremium.makerPaysTaker,
            exclusive,
            request.referrer,
            directions
        );
    }

    function _checkDutchRequest(DutchFillRequest calldata request, uint8[] calldata directions, address taker) private view {
        require(block.timestamp <= request.auctionEnd, AuctionOver(request.auctionEnd));
        require(request.intents.length > 0, NoLegs());
        require(
            request.intents.length == directions.length, LegCountMismatch(request.intents.length, directions.length)
        );
        bytes32 computed = keccak256(abi.encode(directions));
        require(computed == request.makerAddressHash, DirectionsMismatch(request.makerAddressHash, computed));
        require(!dutchNonceUsed[taker][request.takerNonce], DutchNonceUsed(taker, request.takerNonce));
        // A fill authority (KYC) decides who may fill: it must answer isAllowedFiller(caller) = true.
        require(
            request.requiredAuthority == address(0) || _allowedFiller(request.requiredAuthority, msg.sender),
            AuthorityRequired(request.requiredAuthority)
        );
    }

    /// IFillAuthority(authority).isAllowedFiller(filler); anything but a clean `true` (no code,
    /// a revert, a malformed answer) is a refusal.
    function _allowedFiller(address authority, address filler) private view returns (bool) {
        (bool ok, bytes memory ret) = authority.staticcall(abi.encodeCall(IFillAuthority.isAllowedFiller, (filler)));
        return ok && ret.length == 32 && abi.decode(ret, (uint256)) == 1;
    }

    function _checkAward(DutchFillRequest calldata request, bytes32 digest, DutchAward calldata award, bytes calldata sig)
        private
        view
    {
        require(award.requestDigest == digest, AwardMismatch(digest, award.requestDigest));
        require(block.timestamp >= award.notBefore, AwardNotYet(award.notBefore));
        require(award.improvementBps <= DutchCurve.BPS, BadBps(award.improvementBps));
        address signer = _recover(digestDutchAward(award), sig);
        // The mothership as authority: any registered auctioneer; otherwise exactly that key.
        bool allowed = request.requiredDutchAuthority == address(this)
            ? isServiceSigner[signer]
            : signer == request.requiredDutchAuthority;
        require(allowed, NotAuctioneer(signer));
    }

    /// The winner is the award's `filler`, by address: nothing a bystander can copy from the
    /// award or a pending transaction makes it the caller.
    function _dutchPrice(DutchFillRequest calldata request, DutchAward calldata award)
        private
        view
        returns (uint256 premium, bool exclusive)
    {
        uint256 curve = DutchCurve.premiumAt(request.dutchPremium, request.auctionEnd, block.timestamp);
        bool makerPays = request.dutchPremium.makerPaysTaker;
        if (award.filler == address(0) || block.timestamp > award.exclusiveEnd) return (curve, false);
        if (msg.sender == award.filler) {
            return (DutchCurve.improved(curve, makerPays, award.improvementBps), true);
        }
        uint256 bps = award.improvementBps + dutchOverrideBps;
        require(bps <= DutchCurve.BPS, BadBps(bps));
        return (DutchCurve.improved(curve, makerPays, bps), false);
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

    /// Direction 1 (Sell) leaves the taker long the option, 0 (Buy) leaves the filler long.
    function _mintTo(Leg calldata leg, uint256 index, uint8 direction, address taker, address filler) private {
        require(direction <= 1, BadDirection(index));
        require(leg.expiryTimestamp > block.timestamp, OptionExpired(index));
        uint256 id = OptionIds.encode(leg.optionType, leg.strikeWad, leg.expiryTimestamp, leg.startExerciseTimestamp);
        IOptionMinter(leg.pair6909Contract).mint(direction == 1 ? taker : filler, id, leg.amount);
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
