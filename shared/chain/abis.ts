import { parseAbi, parseAbiItem } from 'viem';

/**
 * Typed ABIs of the reference contracts, for viem. Events come first and are exported one by
 * one; which of them the indexer reads, and how, is its registry's to say
 * (indexer/events/registry.ts). A chain test compares every entry with the compiled artifact,
 * so these cannot drift from the Solidity sources.
 */

/** Mothership: a package offer settled, i.e. the quote with this taker hash is filled. */
export const packageExecutedEvent = parseAbiItem(
  'event PackageExecuted(bytes32 indexed takerAddressHash, address indexed maker, address indexed taker, bytes32 offerDigest, address premiumToken, uint256 packagePremium, bool makerPaysTaker, uint256 nonce, address referrer, uint8[] directions)',
);
/** Mothership: a taker-signed Dutch request filled; `requestDigest` identifies its quote. */
export const dutchFilledEvent = parseAbiItem(
  'event DutchFilled(bytes32 indexed requestDigest, address indexed taker, address indexed filler, uint256 takerNonce, address premiumToken, uint256 premium, bool makerPaysTaker, bool exclusive, address referrer, uint8[] directions)',
);
/** Mothership: the owner changed the Dutch sniping override. */
export const dutchOverrideBpsSetEvent = parseAbiItem('event DutchOverrideBpsSet(uint256 bps)');
/** PairFactory: a new pair (CLOB) exists. */
export const pairCreatedEvent = parseAbiItem(
  'event PairCreated(address indexed pair, address token0, address token1, address premiumToken)',
);
/** OptionPair: ERC-6909 transfer; sender 0 is a mint. */
export const transferEvent = parseAbiItem(
  'event Transfer(address caller, address indexed sender, address indexed receiver, uint256 indexed id, uint256 amount)',
);
/** OptionPair: ERC-6909 operator approval. */
export const operatorSetEvent = parseAbiItem('event OperatorSet(address indexed owner, address indexed spender, bool approved)');
/** OptionPair: ERC-6909 per-id allowance. */
export const approvalEvent = parseAbiItem(
  'event Approval(address indexed owner, address indexed spender, uint256 indexed id, uint256 amount)',
);
/** OptionPair: an order entered the book. */
export const orderPlacedEvent = parseAbiItem(
  'event OrderPlaced(uint256 indexed orderId, address indexed owner, uint256 indexed id, bool isBuy, uint256 price, uint256 amount)',
);
/** OptionPair: part or all of an order filled; `remaining` is what is left open. */
export const orderFilledEvent = parseAbiItem(
  'event OrderFilled(uint256 indexed orderId, address indexed owner, address indexed filler, uint256 id, uint256 amount, uint256 price, uint256 remaining)',
);
/** OptionPair: an order left the book; `remaining` was unfilled. */
export const orderCancelledEvent = parseAbiItem(
  'event OrderCancelled(uint256 indexed orderId, address indexed owner, uint256 remaining)',
);
/** BondVault: a maker added bond; `balance` is the new total. */
export const bondDepositedEvent = parseAbiItem(
  'event BondDeposited(address indexed maker, address indexed token, uint256 amount, uint256 balance)',
);
/** BondVault: a maker took bond out; `balance` is the new total. */
export const bondWithdrawnEvent = parseAbiItem(
  'event BondWithdrawn(address indexed maker, address indexed token, uint256 amount, uint256 balance)',
);

const STRUCTS = [
  'struct Leg { address pair6909Contract; uint8 optionType; uint8 structure; uint40 startExerciseTimestamp; uint40 expiryTimestamp; uint144 strikeWad; uint256 amount; }',
  'struct TokenTriple { address token0; address token1; address premiumToken; }',
  'struct DutchPremium { address token; bool makerPaysTaker; uint256 startPremium; uint256 endPremium; uint256 decayRate; uint40 auctionStart; }',
  'struct DutchFillRequest { Leg[] intents; TokenTriple[] tokens; DutchPremium dutchPremium; uint40 auctionEnd; bytes32 makerAddressHash; uint256 takerNonce; address requiredAuthority; address requiredDutchAuthority; address referrer; }',
  'struct PackageOffer { bytes32 takerAddressHash; Leg[] legs; uint256 packagePremium; bool makerPaysTaker; address premiumToken; address maker; uint256 nonce; uint40 deadline; }',
  'struct ExclusiveFill { bytes32 exclusiveFillId; address maker; bytes32[] orderIds; address rewardDestination; bytes32 intentDataHash; uint40 expireTime; }',
  'struct DutchAward { bytes32 requestDigest; bytes32 exclusiveSaltHash; uint256 improvementBps; uint40 notBefore; uint40 exclusiveEnd; }',
] as const;

export const serviceSignerSetEvent = parseAbiItem('event ServiceSignerSet(address indexed signer, bool allowed)');

export const mothershipAbi = [
  packageExecutedEvent,
  serviceSignerSetEvent,
  dutchFilledEvent,
  dutchOverrideBpsSetEvent,
  ...parseAbi([
    ...STRUCTS,
    'function takerAddressHash(address taker, bytes32 salt, uint8[] directions, address referrer) pure returns (bytes32)',
    'function directionsHash(uint8[] directions) pure returns (bytes32)',
    'function optionId(uint8 optionType, uint144 strikeWad, uint40 expiryTimestamp, uint40 startExerciseTimestamp) pure returns (uint256)',
    'function digestDutchFillRequest(DutchFillRequest request) view returns (bytes32)',
    'function digestPackageOffer(PackageOffer offer) view returns (bytes32)',
    'function digestExclusiveFill(ExclusiveFill fill) view returns (bytes32)',
    'function nonceUsed(address maker, uint256 nonce) view returns (bool)',
    'function executeFixedPackageIntent(PackageOffer offer, bytes makerSignature, bytes32 takerSalt, uint8[] directions, address referrer)',
    'function owner() view returns (address)',
    'function isServiceSigner(address signer) view returns (bool)',
    'function setServiceSigner(address signer, bool allowed)',
    'error NotOwner(address caller)',
    'error ZeroSigner()',
    'error OfferExpired(uint40 deadline)',
    'error NoLegs()',
    'error LegCountMismatch(uint256 legs, uint256 directions)',
    'error BadDirection(uint256 leg)',
    'error OptionExpired(uint256 leg)',
    'error TakerHashMismatch(bytes32 expected, bytes32 computed)',
    'error BadSignature()',
    'error WrongSigner(address expected, address recovered)',
    'error NonceAlreadyUsed(address maker, uint256 nonce)',
    'error BadOptionType(uint8 optionType)',
    'function digestDutchAward(DutchAward award) view returns (bytes32)',
    'function dutchPremiumAt(DutchPremium premium, uint40 auctionEnd, uint256 at) pure returns (uint256)',
    'function dutchImproved(uint256 premium, bool makerPaysTaker, uint256 bps) pure returns (uint256)',
    'function executeDutchFill(DutchFillRequest request, bytes takerSignature, uint8[] directions, DutchAward award, bytes awardSignature, bytes32 exclusiveSalt)',
    'function dutchNonceUsed(address taker, uint256 nonce) view returns (bool)',
    'function dutchOverrideBps() view returns (uint256)',
    'function setDutchOverrideBps(uint256 bps)',
    'error AuctionOver(uint40 auctionEnd)',
    'error DirectionsMismatch(bytes32 expected, bytes32 computed)',
    'error DutchNonceUsed(address taker, uint256 nonce)',
    'error AuthorityRequired(address authority)',
    'error AwardMismatch(bytes32 expected, bytes32 awarded)',
    'error AwardNotYet(uint40 notBefore)',
    'error NotAuctioneer(address signer)',
    'error BadBps(uint256 bps)',
  ]),
] as const;

export const pairFactoryAbi = [
  pairCreatedEvent,
  ...parseAbi([
    'function createPair(address token0, address token1, address premiumToken) returns (address pair)',
    'function getPair(address token0, address token1, address premiumToken) view returns (address)',
    'function allPairs(uint256) view returns (address)',
    'function allPairsLength() view returns (uint256)',
    'function mothership() view returns (address)',
    'error PairExists(address pair)',
    'error SameTokens()',
  ]),
] as const;

/** One pair (CLOB): ERC-6909 ledger plus order book. */
export const optionPairAbi = [
  transferEvent,
  operatorSetEvent,
  approvalEvent,
  orderPlacedEvent,
  orderFilledEvent,
  orderCancelledEvent,
  ...parseAbi([
    'function token0() view returns (address)',
    'function token1() view returns (address)',
    'function premiumToken() view returns (address)',
    'function mothership() view returns (address)',
    'function balanceOf(address owner, uint256 id) view returns (uint256)',
    'function totalSupply(uint256 id) view returns (uint256)',
    'function allowance(address owner, address spender, uint256 id) view returns (uint256)',
    'function isOperator(address owner, address operator) view returns (bool)',
    'function transfer(address receiver, uint256 id, uint256 amount) returns (bool)',
    'function transferFrom(address sender, address receiver, uint256 id, uint256 amount) returns (bool)',
    'function approve(address spender, uint256 id, uint256 amount) returns (bool)',
    'function setOperator(address spender, bool approved) returns (bool)',
    'function orders(uint256 orderId) view returns (address owner, bool isBuy, uint256 id, uint256 price, uint256 remaining)',
    'function nextOrderId() view returns (uint256)',
    'function placeOrder(uint256 id, bool isBuy, uint256 price, uint256 amount) returns (uint256 orderId)',
    'function fillOrder(uint256 orderId, uint256 amount)',
    'function cancelOrder(uint256 orderId)',
    'function mint(address to, uint256 id, uint256 amount)',
    'error NotMothership()',
    'error InsufficientBalance(address owner, uint256 id)',
    'error InsufficientPermission(address spender, uint256 id)',
    'error ZeroAmount()',
    'error UnknownOrder(uint256 orderId)',
    'error NotOrderOwner(uint256 orderId)',
    'error OverFill(uint256 orderId, uint256 remaining)',
  ]),
] as const;

export const mockErc20Abi = parseAbi([
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event Approval(address indexed owner, address indexed spender, uint256 value)',
  'error InsufficientBalance(address owner, uint256 balance, uint256 needed)',
  'error InsufficientAllowance(address spender, uint256 allowance, uint256 needed)',
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function decimals() view returns (uint8)',
  'function totalSupply() view returns (uint256)',
  'function faucetAmount() view returns (uint256)',
  'function balanceOf(address owner) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'function faucet()',
  'function transfer(address to, uint256 value) returns (bool)',
  'function approve(address spender, uint256 value) returns (bool)',
  'function transferFrom(address from, address to, uint256 value) returns (bool)',
]);

export const bondVaultAbi = [
  bondDepositedEvent,
  bondWithdrawnEvent,
  ...parseAbi([
    'function bondOf(address maker, address token) view returns (uint256)',
    'function deposit(address token, uint256 amount)',
    'function withdraw(address token, uint256 amount)',
    'error InsufficientBond(address maker, address token, uint256 balance, uint256 needed)',
    'error TokenTransferFailed(address token)',
  ]),
] as const;
