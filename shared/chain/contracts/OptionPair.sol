// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

import {ExclusiveFill, OrderIntent} from "./ProtocolTypes.sol";
import {ProtocolHashing} from "./ProtocolHashing.sol";
import {OptionIds} from "./OptionIds.sol";

/// What the pair asks its mothership about an exclusive fill: the digest the service signed
/// (the domain is the mothership's) and whether the signer is a registered service key.
interface IMothershipRegistry {
    function digestExclusiveFill(ExclusiveFill calldata fill) external view returns (bytes32);
    function isServiceSigner(address signer) external view returns (bool);
}

/// One pair (CLOB) per token0 / token1 / premium-token triple: an ERC-6909 ledger of option
/// series (ids from OptionIds) and a minimal order book. Orders only record intent and emit
/// events; a fill mints the option to the buying side and moves no tokens. That keeps the
/// contract small while producing every event the indexer reads.
contract OptionPair {
    address public immutable token0;
    address public immutable token1;
    address public immutable premiumToken;
    /// The only address that may mint outside the book (package settlement).
    address public immutable mothership;

    mapping(address owner => mapping(uint256 id => uint256)) public balanceOf;
    mapping(address owner => mapping(address spender => mapping(uint256 id => uint256))) public allowance;
    mapping(address owner => mapping(address operator => bool)) public isOperator;
    mapping(uint256 id => uint256) public totalSupply;

    struct Order {
        address owner;
        bool isBuy;
        uint256 id;
        uint256 price;
        uint256 remaining;
    }

    mapping(uint256 orderId => Order) public orders;
    uint256 public nextOrderId = 1;

    /// The book order an intent became (0: never placed). An intent is placed at most once.
    mapping(bytes32 intentHash => uint256 orderId) public orderOfIntent;
    /// The (prefix, nonce) an owner's placed intents used; each is accepted once.
    mapping(address owner => mapping(uint64 prefix => mapping(uint256 nonce => bool))) public intentNonceUsed;
    mapping(bytes32 exclusiveFillId => bool) public exclusiveFillUsed;

    /// What an intent-placed book order keeps of its intent, so a plain `fillOrder` honours it:
    /// the time window, the decaying minimum fill, the decaying premium and the reward limits.
    struct IntentTerms {
        bool placed;
        uint40 startTime; // intentStartTime
        uint40 lastTime; // intentExpiry, or the option's expiry with orderOnExpiry 1
        uint32 premiumDecayRateBpsPerSecond;
        uint256 premiumStart;
        uint256 premiumEnd;
        uint256 startMinFill;
        uint256 minFillDecayRatePerSecond;
        uint256 fillerRewardMinPerMintedUnit;
        uint256 fillerRewardMaxPerMintedUnit;
    }

    mapping(uint256 orderId => IntentTerms) private intentTermsOf;

    /// secp256k1 n / 2: signatures with a higher s are malleable copies and are refused.
    uint256 private constant HALF_ORDER = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    event Transfer(address caller, address indexed sender, address indexed receiver, uint256 indexed id, uint256 amount);
    event OperatorSet(address indexed owner, address indexed spender, bool approved);
    event Approval(address indexed owner, address indexed spender, uint256 indexed id, uint256 amount);
    event OrderPlaced(
        uint256 indexed orderId, address indexed owner, uint256 indexed id, bool isBuy, uint256 price, uint256 amount
    );
    event OrderFilled(
        uint256 indexed orderId,
        address indexed owner,
        address indexed filler,
        uint256 id,
        uint256 amount,
        uint256 price,
        uint256 remaining
    );
    event OrderCancelled(uint256 indexed orderId, address indexed owner, uint256 remaining);
    /// The owner placed an API-recorded order: `orderId` is its book order (OrderPlaced precedes this).
    event OrderIntentPlaced(
        uint256 indexed orderId, bytes32 indexed intentHash, address indexed owner, uint64 noncePrefix, uint256 nonce
    );
    /// An API-signed exclusive fill was used: every order it names was filled (OrderFilled each).
    event ExclusiveFillUsed(
        bytes32 indexed exclusiveFillId,
        address indexed maker,
        address indexed rewardDestination,
        bytes32 intentDataHash,
        uint256 rewardPerUnit,
        uint256 totalReward
    );

    error NotMothership();
    error InsufficientBalance(address owner, uint256 id);
    error InsufficientPermission(address spender, uint256 id);
    error ZeroAmount();
    error UnknownOrder(uint256 orderId);
    error NotOrderOwner(uint256 orderId);
    error OverFill(uint256 orderId, uint256 remaining);
    error NotIntentOwner(address owner, address caller);
    error WrongPair(address expected);
    error WrongDestination(address to);
    error IntentNotStarted(uint40 intentStartTime);
    error IntentExpired(uint40 intentExpiry);
    error IntentNonceUsed(address owner, uint64 prefix, uint256 nonce);
    error IntentAlreadyPlaced(bytes32 intentHash);
    error IntentNotPlaced(bytes32 intentHash);
    error OrderClosed(uint256 orderId);
    error NotFillMaker(address maker, address caller);
    error FillExpired(uint40 expireTime);
    error FillAlreadyUsed(bytes32 exclusiveFillId);
    error FillOrderCount(uint256 orderIds, uint256 intents);
    error IntentDataMismatch(bytes32 expected, bytes32 computed);
    error UnregisteredSigner(address signer);
    error BadSignature();
    error RewardOutOfLimits(uint256 orderId, uint256 rewardPerUnit);
    error BelowMinFill(uint256 orderId, uint256 amount, uint256 minFill);

    constructor(address token0_, address token1_, address premiumToken_, address mothership_) {
        token0 = token0_;
        token1 = token1_;
        premiumToken = premiumToken_;
        mothership = mothership_;
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == 0x01ffc9a7 /* ERC-165 */ || interfaceId == 0x0f632fb3; /* ERC-6909 */
    }

    function transfer(address receiver, uint256 id, uint256 amount) external returns (bool) {
        _move(msg.sender, receiver, id, amount);
        return true;
    }

    function transferFrom(address sender, address receiver, uint256 id, uint256 amount) external returns (bool) {
        if (msg.sender != sender && !isOperator[sender][msg.sender]) {
            uint256 allowed = allowance[sender][msg.sender][id];
            require(allowed >= amount, InsufficientPermission(msg.sender, id));
            if (allowed != type(uint256).max) allowance[sender][msg.sender][id] = allowed - amount;
        }
        _move(sender, receiver, id, amount);
        return true;
    }

    function approve(address spender, uint256 id, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender][id] = amount;
        emit Approval(msg.sender, spender, id, amount);
        return true;
    }

    function setOperator(address spender, bool approved) external returns (bool) {
        isOperator[msg.sender][spender] = approved;
        emit OperatorSet(msg.sender, spender, approved);
        return true;
    }

    /// Package settlement mints through the mothership.
    function mint(address to, uint256 id, uint256 amount) external {
        require(msg.sender == mothership, NotMothership());
        _mint(to, id, amount);
    }

    function placeOrder(uint256 id, bool isBuy, uint256 price, uint256 amount) external returns (uint256 orderId) {
        require(amount > 0, ZeroAmount());
        orderId = nextOrderId++;
        orders[orderId] = Order({owner: msg.sender, isBuy: isBuy, id: id, price: price, remaining: amount});
        emit OrderPlaced(orderId, msg.sender, id, isBuy, price, amount);
    }

    /// The caller takes the other side of `amount` of an open order. An order placed from an
    /// intent (placeIntent) is filled only on its intent's terms: inside intentStartTime ..
    /// intentExpiry (the option's expiry with orderOnExpiry 1), at least the decayed minimum fill
    /// (or the whole remainder when less is left), with no filler reward (a plain fill pays none:
    /// 0 must lie within the reward limits), at the premium decayed to now.
    function fillOrder(uint256 orderId, uint256 amount) external {
        Order storage o = orders[orderId];
        require(o.owner != address(0), UnknownOrder(orderId));
        require(amount > 0, ZeroAmount());
        require(amount <= o.remaining, OverFill(orderId, o.remaining));
        uint256 price = o.price;
        IntentTerms storage t = intentTermsOf[orderId];
        if (t.placed) price = _checkIntentFill(orderId, t, amount, o.remaining);
        o.remaining -= amount;
        _mint(o.isBuy ? o.owner : msg.sender, o.id, amount);
        emit OrderFilled(orderId, o.owner, msg.sender, o.id, amount, price, o.remaining);
    }

    /// An intent order's terms at this block: reverts outside them, else answers the fill's premium.
    function _checkIntentFill(uint256 orderId, IntentTerms storage t, uint256 amount, uint256 remaining)
        private
        view
        returns (uint256 premium)
    {
        require(block.timestamp >= t.startTime, IntentNotStarted(t.startTime));
        require(block.timestamp <= t.lastTime, IntentExpired(t.lastTime));
        // A plain fill pays the filler no reward: 0 must lie within the intent's reward limits.
        require(t.fillerRewardMinPerMintedUnit == 0, RewardOutOfLimits(orderId, 0));
        uint256 elapsed = block.timestamp - t.startTime;
        uint256 minFill = _minFillAt(t.startMinFill, t.minFillDecayRatePerSecond, elapsed);
        if (minFill > remaining) minFill = remaining;
        require(amount >= minFill, BelowMinFill(orderId, amount, minFill));
        premium = _decayed(t.premiumStart, t.premiumEnd, t.premiumDecayRateBpsPerSecond, elapsed);
    }

    /// `start` less `ratePerSecond` per elapsed second, never below 0 (and never overflowing).
    function _minFillAt(uint256 start, uint256 ratePerSecond, uint256 elapsed) private pure returns (uint256) {
        if (ratePerSecond == 0) return start;
        if (elapsed > start / ratePerSecond) return 0;
        return start - ratePerSecond * elapsed;
    }

    /// `start` moved toward `end` by `rateBps` basis points of `start` per elapsed second, never
    /// past `end` (and never overflowing).
    function _decayed(uint256 start, uint256 end, uint32 rateBps, uint256 elapsed) private pure returns (uint256) {
        if (start == end || rateBps == 0 || elapsed == 0) return start;
        uint256 span = start > end ? start - end : end - start;
        // One second's move, start * rateBps / 10000; when even that overflows it covers any span.
        if (start / 10_000 > (type(uint256).max - 10_000 * uint256(rateBps)) / rateBps) return end;
        uint256 perSecond = (start / 10_000) * rateBps + (start % 10_000) * rateBps / 10_000;
        if (perSecond == 0) return start;
        if (elapsed > span / perSecond) return end;
        uint256 moved = perSecond * elapsed;
        return start > end ? start - moved : start + moved;
    }

    /// The order's intent hash, as the API computes it (shared/protocol/order-intent.ts).
    function hashOrderIntent(OrderIntent calldata intent) external pure returns (bytes32) {
        return ProtocolHashing.hashOrderIntent(intent);
    }

    /// The owner's on-chain authorization of an API-recorded order: only `intent.from` can put
    /// it in the book, once per (prefix, nonce). The book order rests at `premiumStart`.
    function placeIntent(OrderIntent calldata intent) external returns (uint256 orderId) {
        require(msg.sender == intent.from, NotIntentOwner(intent.from, msg.sender));
        require(intent.options6909Contract == address(this), WrongPair(address(this)));
        require(intent.to == address(this) || intent.to == mothership, WrongDestination(intent.to));
        require(intent.amount > 0, ZeroAmount());
        require(block.timestamp < intent.intentExpiry, IntentExpired(intent.intentExpiry));
        require(
            !intentNonceUsed[intent.from][intent.noncePrefix][intent.nonce],
            IntentNonceUsed(intent.from, intent.noncePrefix, intent.nonce)
        );
        bytes32 intentHash = ProtocolHashing.hashOrderIntent(intent);
        require(orderOfIntent[intentHash] == 0, IntentAlreadyPlaced(intentHash));
        intentNonceUsed[intent.from][intent.noncePrefix][intent.nonce] = true;

        uint256 id = OptionIds.encode(
            intent.optionType, intent.strikeStart, intent.expiryTimestamp, intent.startExecutionTimestamp
        );
        orderId = nextOrderId++;
        orderOfIntent[intentHash] = orderId;
        bool isBuy = intent.buyOrSell == 0;
        orders[orderId] = Order({owner: msg.sender, isBuy: isBuy, id: id, price: intent.premiumStart, remaining: intent.amount});
        intentTermsOf[orderId] = IntentTerms({
            placed: true,
            startTime: intent.intentStartTime,
            lastTime: intent.orderOnExpiry == 1 ? intent.expiryTimestamp : intent.intentExpiry,
            premiumDecayRateBpsPerSecond: intent.premiumDecayRateBpsPerSecond,
            premiumStart: intent.premiumStart,
            premiumEnd: intent.premiumEnd,
            startMinFill: intent.startMinFill,
            minFillDecayRatePerSecond: intent.minFillDecayRatePerSecond,
            fillerRewardMinPerMintedUnit: intent.fillerRewardMinPerMintedUnit,
            fillerRewardMaxPerMintedUnit: intent.fillerRewardMaxPerMintedUnit
        });
        emit OrderPlaced(orderId, msg.sender, id, isBuy, intent.premiumStart, intent.amount);
        emit OrderIntentPlaced(orderId, intentHash, msg.sender, intent.noncePrefix, intent.nonce);
    }

    /// The maker named in an API-signed exclusive fill takes every order it covers, in full. The
    /// fill must be signed by a service key the mothership registers, unexpired, unused, and
    /// carry the intent hashes of exactly these intents; `rewardPerUnit` (paid to the fill's
    /// reward destination per unit minted) must lie within every order's reward limits.
    function fillExclusive(
        ExclusiveFill calldata fill,
        bytes calldata signature,
        OrderIntent[] calldata intents,
        uint256 rewardPerUnit
    ) external {
        require(msg.sender == fill.maker, NotFillMaker(fill.maker, msg.sender));
        require(block.timestamp <= fill.expireTime, FillExpired(fill.expireTime));
        require(!exclusiveFillUsed[fill.exclusiveFillId], FillAlreadyUsed(fill.exclusiveFillId));
        require(fill.orderIds.length == intents.length, FillOrderCount(fill.orderIds.length, intents.length));
        bytes32 computed = ProtocolHashing.hashIntentData(intents);
        require(computed == fill.intentDataHash, IntentDataMismatch(fill.intentDataHash, computed));
        address signer = _recover(IMothershipRegistry(mothership).digestExclusiveFill(fill), signature);
        require(IMothershipRegistry(mothership).isServiceSigner(signer), UnregisteredSigner(signer));
        exclusiveFillUsed[fill.exclusiveFillId] = true;

        uint256 minted = 0;
        for (uint256 i = 0; i < intents.length; i++) {
            minted += _fillIntent(intents[i], rewardPerUnit);
        }
        emit ExclusiveFillUsed(
            fill.exclusiveFillId, fill.maker, fill.rewardDestination, fill.intentDataHash, rewardPerUnit, minted * rewardPerUnit
        );
    }

    /// Fills one placed, open, unexpired intent's order in full; returns the amount minted.
    function _fillIntent(OrderIntent calldata intent, uint256 rewardPerUnit) private returns (uint256 amount) {
        bytes32 intentHash = ProtocolHashing.hashOrderIntent(intent);
        uint256 orderId = orderOfIntent[intentHash];
        require(orderId != 0, IntentNotPlaced(intentHash));
        require(block.timestamp >= intent.intentStartTime, IntentNotStarted(intent.intentStartTime));
        // orderOnExpiry 1 keeps the order in the book past intentExpiry, until the option expires.
        uint40 lastTime = intent.orderOnExpiry == 1 ? intent.expiryTimestamp : intent.intentExpiry;
        require(block.timestamp <= lastTime, IntentExpired(lastTime));
        require(
            rewardPerUnit >= intent.fillerRewardMinPerMintedUnit && rewardPerUnit <= intent.fillerRewardMaxPerMintedUnit,
            RewardOutOfLimits(orderId, rewardPerUnit)
        );
        Order storage o = orders[orderId];
        amount = o.remaining;
        require(amount > 0, OrderClosed(orderId));
        o.remaining = 0;
        _mint(o.isBuy ? o.owner : msg.sender, o.id, amount);
        emit OrderFilled(orderId, o.owner, msg.sender, o.id, amount, o.price, 0);
    }

    function _recover(bytes32 digest, bytes calldata signature) private pure returns (address signer) {
        require(signature.length == 65, BadSignature());
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (v < 27) v += 27;
        require(uint256(s) <= HALF_ORDER && (v == 27 || v == 28), BadSignature());
        signer = ecrecover(digest, v, r, s);
        require(signer != address(0), BadSignature());
    }

    function cancelOrder(uint256 orderId) external {
        Order storage o = orders[orderId];
        require(o.owner != address(0), UnknownOrder(orderId));
        require(o.owner == msg.sender, NotOrderOwner(orderId));
        uint256 remaining = o.remaining;
        o.remaining = 0;
        emit OrderCancelled(orderId, msg.sender, remaining);
    }

    function _mint(address to, uint256 id, uint256 amount) private {
        require(amount > 0, ZeroAmount());
        totalSupply[id] += amount;
        balanceOf[to][id] += amount;
        emit Transfer(msg.sender, address(0), to, id, amount);
    }

    function _move(address sender, address receiver, uint256 id, uint256 amount) private {
        uint256 balance = balanceOf[sender][id];
        require(balance >= amount, InsufficientBalance(sender, id));
        balanceOf[sender][id] = balance - amount;
        balanceOf[receiver][id] += amount;
        emit Transfer(msg.sender, sender, receiver, id, amount);
    }
}
