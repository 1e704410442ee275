import { parseAbi, parseAbiItem } from 'viem';

/**
 * Typed ABIs of the reference contracts, for viem. Events come first and are exported one by
 * one; which of them the indexer reads, and how, its table INDEXED_EVENTS says
 * (indexer/chain-events/indexed-events.ts). A chain test compares every entry with the compiled artifact,
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
export const pairCreatedEvent = parseAbiItem('event PairCreated(address indexed pair, address token0, address token1, address premiumToken)');
/** OptionPair: ERC-6909 transfer; sender 0 is a mint. */
export const transferEvent = parseAbiItem(
  'event Transfer(address caller, address indexed sender, address indexed receiver, uint256 indexed id, uint256 amount)',
);
/** OptionPair: ERC-6909 operator approval. */
export const operatorSetEvent = parseAbiItem('event OperatorSet(address indexed owner, address indexed spender, bool approved)');
/** OptionPair: ERC-6909 per-id allowance. */
export const approvalEvent = parseAbiItem('event Approval(address indexed owner, address indexed spender, uint256 indexed id, uint256 amount)');
/** OptionPair: an order entered the book. */
export const orderPlacedEvent = parseAbiItem(
  'event OrderPlaced(uint256 indexed orderId, address indexed owner, uint256 indexed id, bool isBuy, uint256 price, uint256 amount)',
);
/** OptionPair: part or all of an order filled; `remaining` is what is left open. */
export const orderFilledEvent = parseAbiItem(
  'event OrderFilled(uint256 indexed orderId, address indexed owner, address indexed filler, uint256 id, uint256 amount, uint256 price, uint256 remaining)',
);
/** OptionPair: an order left the book; `remaining` was unfilled. */
export const orderCancelledEvent = parseAbiItem('event OrderCancelled(uint256 indexed orderId, address indexed owner, uint256 remaining)');
/** OptionPair: the owner placed an API-recorded order; `orderId` is its book order. */
export const orderIntentPlacedEvent = parseAbiItem(
  'event OrderIntentPlaced(uint256 indexed orderId, bytes32 indexed intentHash, address indexed owner, uint64 noncePrefix, uint256 nonce)',
);
/** OptionPair: an API-signed exclusive fill was used; its orders were filled (OrderFilled each). */
export const exclusiveFillUsedEvent = parseAbiItem(
  'event ExclusiveFillUsed(bytes32 indexed exclusiveFillId, address indexed maker, address indexed rewardDestination, bytes32 intentDataHash, uint256 rewardPerUnit, uint256 totalReward)',
);
/** BondVault: a maker added bond; `balance` is the new total. */
export const bondDepositedEvent = parseAbiItem('event BondDeposited(address indexed maker, address indexed token, uint256 amount, uint256 balance)');
/** BondVault: a maker took bond out; `balance` is the new total. */
export const bondWithdrawnEvent = parseAbiItem('event BondWithdrawn(address indexed maker, address indexed token, uint256 amount, uint256 balance)');
/** BondVault: a maker asked to take `amount` out (the whole pending amount; 0 cancels), withdrawable at `withdrawableAt`; `balance` is unchanged. */
export const bondWithdrawalRequestedEvent = parseAbiItem(
  'event BondWithdrawalRequested(address indexed maker, address indexed token, uint256 amount, uint256 balance, uint256 withdrawableAt)',
);

const STRUCTS = [
  'struct Leg { address pair6909Contract; uint8 optionType; uint8 structure; uint40 startExerciseTimestamp; uint40 expiryTimestamp; uint144 strikeWad; uint256 amount; }',
  'struct TokenTriple { address token0; address token1; address premiumToken; }',
  'struct DutchPremium { address token; bool makerPaysTaker; uint256 startPremium; uint256 endPremium; uint256 decayRate; uint40 auctionStart; }',
  'struct DutchFillRequest { Leg[] intents; TokenTriple[] tokens; DutchPremium dutchPremium; uint40 auctionEnd; bytes32 makerAddressHash; uint256 takerNonce; address requiredAuthority; address requiredDutchAuthority; address referrer; }',
  'struct PackageOffer { bytes32 takerAddressHash; Leg[] legs; uint256 packagePremium; bool makerPaysTaker; address premiumToken; address maker; uint256 nonce; uint40 deadline; }',
  'struct ExclusiveFill { bytes32 exclusiveFillId; address maker; bytes32[] orderIds; address rewardDestination; bytes32 intentDataHash; uint40 expireTime; }',
  'struct OrderIntent { address from; address to; uint64 noncePrefix; uint256 nonce; address options6909Contract; uint256 amount; uint256 fillerRewardMaxPerMintedUnit; uint256 fillerRewardMinPerMintedUnit; uint8 optionType; uint40 startExecutionTimestamp; uint40 expiryTimestamp; uint256 premiumStart; uint256 premiumEnd; uint32 premiumDecayRateBpsPerSecond; uint144 strikeStart; uint144 strikeEnd; uint32 strikeDecayRateBpsPerSecond; uint256 startMinFill; uint256 minFillDecayRatePerSecond; uint8 buyOrSell; uint40 intentStartTime; uint40 intentExpiry; uint8 orderOnExpiry; }',
  'struct DutchAward { bytes32 requestDigest; address filler; uint256 improvementBps; uint40 notBefore; uint40 exclusiveEnd; }',
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
    'function executeDutchFill(DutchFillRequest request, bytes takerSignature, uint8[] directions, DutchAward award, bytes awardSignature)',
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
  orderIntentPlacedEvent,
  exclusiveFillUsedEvent,
  ...parseAbi([
    ...STRUCTS,
    'function hashOrderIntent(OrderIntent intent) pure returns (bytes32)',
    'function placeIntent(OrderIntent intent) returns (uint256 orderId)',
    'function fillExclusive(ExclusiveFill fill, bytes signature, OrderIntent[] intents, uint256 rewardPerUnit)',
    'function orderOfIntent(bytes32 intentHash) view returns (uint256 orderId)',
    'error BadOptionType(uint8 optionType)',
    'function intentNonceUsed(address owner, uint64 prefix, uint256 nonce) view returns (bool)',
    'function exclusiveFillUsed(bytes32 exclusiveFillId) view returns (bool)',
    'error NotIntentOwner(address owner, address caller)',
    'error WrongPair(address expected)',
    'error WrongDestination(address to)',
    'error IntentNotStarted(uint40 intentStartTime)',
    'error IntentExpired(uint40 intentExpiry)',
    'error IntentNonceUsed(address owner, uint64 prefix, uint256 nonce)',
    'error IntentAlreadyPlaced(bytes32 intentHash)',
    'error IntentNotPlaced(bytes32 intentHash)',
    'error OrderClosed(uint256 orderId)',
    'error NotFillMaker(address maker, address caller)',
    'error FillExpired(uint40 expireTime)',
    'error FillAlreadyUsed(bytes32 exclusiveFillId)',
    'error FillOrderCount(uint256 orderIds, uint256 intents)',
    'error IntentDataMismatch(bytes32 expected, bytes32 computed)',
    'error UnregisteredSigner(address signer)',
    'error BadSignature()',
    'error RewardOutOfLimits(uint256 orderId, uint256 rewardPerUnit)',
    'error BelowMinFill(uint256 orderId, uint256 amount, uint256 minFill)',
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
  bondWithdrawalRequestedEvent,
  bondWithdrawnEvent,
  ...parseAbi([
    'function withdrawalDelay() view returns (uint256)',
    'function bondOf(address maker, address token) view returns (uint256)',
    'function pendingWithdrawal(address maker, address token) view returns (uint256)',
    'function withdrawableAt(address maker, address token) view returns (uint256)',
    'function deposit(address token, uint256 amount)',
    'function requestWithdrawal(address token, uint256 amount)',
    'function withdraw(address token)',
    'error InsufficientBond(address maker, address token, uint256 balance, uint256 needed)',
    'error NoPendingWithdrawal(address maker, address token)',
    'error WithdrawalNotReady(address maker, address token, uint256 withdrawableAt)',
    'error TokenTransferFailed(address token)',
  ]),
] as const;

/** PriceOracle: the value of one whole `token` in USD (18 decimals), and the token's decimals. */
export const priceUpdatedEvent = parseAbiItem('event PriceUpdated(address indexed token, uint256 priceWad, uint8 decimals)');
/** LendingMarket: a loan exists; terms as accepted, liquidation threshold in basis points. */
export const loanOpenedEvent = parseAbiItem(
  'event LoanOpened(uint256 indexed loanId, address indexed borrower, address indexed lender, address collateralToken, uint256 collateralAmount, address debtToken, uint256 principal, uint32 rateBps, uint16 liquidationThresholdBps, uint40 maturity)',
);
/** LendingMarket: collateral topped up; `collateral` is the new total. */
export const collateralAddedEvent = parseAbiItem('event CollateralAdded(uint256 indexed loanId, address indexed from, uint256 amount, uint256 collateral)');
/** LendingMarket: collateral taken back (by the borrower, or returned on full repayment); `collateral` is what is left. */
export const collateralWithdrawnEvent = parseAbiItem(
  'event CollateralWithdrawn(uint256 indexed loanId, address indexed to, uint256 amount, uint256 collateral)',
);
/** LendingMarket: a repayment, interest first; `principalRemaining` 0 closes the loan. */
export const loanRepaidEvent = parseAbiItem(
  'event LoanRepaid(uint256 indexed loanId, address indexed payer, uint256 principalPaid, uint256 interestPaid, uint256 principalRemaining)',
);
/** LendingMarket: an unhealthy or overdue loan's debt repaid by a liquidator, who took the collateral. */
export const loanLiquidatedEvent = parseAbiItem(
  'event LoanLiquidated(uint256 indexed loanId, address indexed liquidator, uint256 principalRepaid, uint256 interestRepaid, uint256 collateralSeized)',
);

export const priceOracleAbi = [
  priceUpdatedEvent,
  ...parseAbi([
    'function owner() view returns (address)',
    'function priceWad(address token) view returns (uint256)',
    'function decimalsOf(address token) view returns (uint8)',
    'function setPrice(address token, uint256 price)',
    'function valueOf(address token, uint256 amount) view returns (uint256)',
    'error NotOwner()',
    'error ZeroPrice(address token)',
    'error NoPrice(address token)',
  ]),
] as const;

export const lendingMarketAbi = [
  loanOpenedEvent,
  collateralAddedEvent,
  collateralWithdrawnEvent,
  loanRepaidEvent,
  loanLiquidatedEvent,
  ...parseAbi([
    'event LoanOffered(uint256 indexed offerId, address indexed lender, address indexed borrower)',
    'event OfferCancelled(uint256 indexed offerId)',
    'function oracle() view returns (address)',
    'function liquidationThresholdBps() view returns (uint16)',
    'function nextOfferId() view returns (uint256)',
    'function nextLoanId() view returns (uint256)',
    'function offers(uint256 offerId) view returns (address lender, address borrower, address collateralToken, address debtToken, uint256 collateralAmount, uint256 principal, uint32 rateBps, uint40 maturity, bool open)',
    'function loans(uint256 loanId) view returns (address borrower, address lender, address collateralToken, address debtToken, uint256 collateral, uint256 principal, uint256 interestOwed, uint32 rateBps, uint16 thresholdBps, uint40 maturity, uint40 accruedAt, uint8 state)',
    'function offerLoan(address borrower, address collateralToken, uint256 collateralAmount, address debtToken, uint256 principal, uint32 rateBps, uint40 maturity) returns (uint256 offerId)',
    'function cancelOffer(uint256 offerId)',
    'function acceptOffer(uint256 offerId) returns (uint256 loanId)',
    'function addCollateral(uint256 loanId, uint256 amount)',
    'function withdrawCollateral(uint256 loanId, uint256 amount)',
    'function repay(uint256 loanId, uint256 amount)',
    'function liquidate(uint256 loanId)',
    'function healthFactor(uint256 loanId) view returns (uint256)',
    'error BadTerms()',
    'error UnknownOffer(uint256 offerId)',
    'error NotYourOffer(uint256 offerId)',
    'error NotActive(uint256 loanId)',
    'error NotBorrower(uint256 loanId)',
    'error ZeroAmount()',
    'error Unhealthy(uint256 loanId, uint256 healthWad)',
    'error Healthy(uint256 loanId, uint256 healthWad)',
    'error TokenTransferFailed(address token)',
  ]),
] as const;

/** AllowlistFillAuthority: its owner allowed a filler (IFillAuthority.isAllowedFiller now answers true). */
export const fillerAllowedEvent = parseAbiItem('event FillerAllowed(address indexed filler)');
/** AllowlistFillAuthority: its owner disallowed a filler. */
export const fillerDisallowedEvent = parseAbiItem('event FillerDisallowed(address indexed filler)');

/**
 * A Dutch request's fill authority (`required_authority`, docs/DUTCH.md): IFillAuthority is the
 * one question the mothership and the API ask; the rest is the reference allowlist's.
 */
export const fillAuthorityAbi = [
  fillerAllowedEvent,
  fillerDisallowedEvent,
  ...parseAbi([
    'function isAllowedFiller(address filler) view returns (bool)',
    'function owner() view returns (address)',
    'function allowed(address filler) view returns (bool)',
    'function allowFiller(address filler)',
    'function disallowFiller(address filler)',
    'error NotOwner(address caller)',
    'error ZeroFiller()',
  ]),
] as const;

/**
 * The ABIs an integrator calls the reference contracts with, served by `GET /api/abis` so a maker
 * needs nothing of this repository to fund its bond or fill an award. Keyed as the answer is.
 */
export const PUBLISHED_ABIS = {
  mothership: mothershipAbi,
  option_pair: optionPairAbi,
  bond_vault: bondVaultAbi,
  erc20: mockErc20Abi,
} as const;
