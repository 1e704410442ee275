// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

interface IERC20Transfer {
    function transfer(address to, uint256 value) external returns (bool);
    function transferFrom(address from, address to, uint256 value) external returns (bool);
}

interface IPriceSource {
    function valueOf(address token, uint256 amount) external view returns (uint256);
}

/// Reference lending market: fixed-term, over-collateralised loans between one lender and one
/// borrower, valued by a price oracle. A lender offers terms and escrows the principal; the
/// borrower accepts by posting the collateral and receives the principal. Interest is simple,
/// per year of 365 days, on the outstanding principal. A loan whose health factor (collateral
/// value x liquidation threshold / debt value, 18 decimals) falls below 1, or that is past its
/// maturity, may be liquidated by anyone who repays its debt to the lender and takes the
/// collateral. Every event carries the totals after it, so readers never sum history.
contract LendingMarket {
    enum State {
        None,
        Active,
        Repaid,
        Liquidated
    }

    struct Offer {
        address lender;
        address borrower;
        address collateralToken;
        address debtToken;
        uint256 collateralAmount;
        uint256 principal;
        uint32 rateBps;
        uint40 maturity;
        bool open;
    }

    struct Loan {
        address borrower;
        address lender;
        address collateralToken;
        address debtToken;
        uint256 collateral;
        uint256 principal;
        uint256 interestOwed;
        uint32 rateBps;
        uint16 thresholdBps;
        uint40 maturity;
        uint40 accruedAt;
        State state;
    }

    uint256 private constant WAD = 1e18;
    uint256 private constant YEAR = 365 days;

    IPriceSource public immutable oracle;
    /// Share of the collateral's value that counts against the debt, in basis points.
    uint16 public immutable liquidationThresholdBps;

    uint256 public nextOfferId = 1;
    uint256 public nextLoanId = 1;
    mapping(uint256 offerId => Offer) public offers;
    mapping(uint256 loanId => Loan) public loans;

    event LoanOffered(uint256 indexed offerId, address indexed lender, address indexed borrower);
    event OfferCancelled(uint256 indexed offerId);
    event LoanOpened(
        uint256 indexed loanId,
        address indexed borrower,
        address indexed lender,
        address collateralToken,
        uint256 collateralAmount,
        address debtToken,
        uint256 principal,
        uint32 rateBps,
        uint16 liquidationThresholdBps,
        uint40 maturity
    );
    event CollateralAdded(uint256 indexed loanId, address indexed from, uint256 amount, uint256 collateral);
    event CollateralWithdrawn(uint256 indexed loanId, address indexed to, uint256 amount, uint256 collateral);
    event LoanRepaid(uint256 indexed loanId, address indexed payer, uint256 principalPaid, uint256 interestPaid, uint256 principalRemaining);
    event LoanLiquidated(
        uint256 indexed loanId,
        address indexed liquidator,
        uint256 principalRepaid,
        uint256 interestRepaid,
        uint256 collateralSeized
    );

    error BadTerms();
    error UnknownOffer(uint256 offerId);
    error NotYourOffer(uint256 offerId);
    error NotActive(uint256 loanId);
    error NotBorrower(uint256 loanId);
    error ZeroAmount();
    error Unhealthy(uint256 loanId, uint256 healthWad);
    error Healthy(uint256 loanId, uint256 healthWad);
    error TokenTransferFailed(address token);

    constructor(IPriceSource oracle_, uint16 liquidationThresholdBps_) {
        require(liquidationThresholdBps_ > 0 && liquidationThresholdBps_ <= 10_000, BadTerms());
        oracle = oracle_;
        liquidationThresholdBps = liquidationThresholdBps_;
    }

    /// Offers a loan to `borrower` (or to anyone when zero) and escrows the principal.
    function offerLoan(
        address borrower,
        address collateralToken,
        uint256 collateralAmount,
        address debtToken,
        uint256 principal,
        uint32 rateBps,
        uint40 maturity
    ) external returns (uint256 offerId) {
        require(principal > 0 && collateralAmount > 0 && maturity > block.timestamp && collateralToken != debtToken, BadTerms());
        offerId = nextOfferId++;
        offers[offerId] = Offer(msg.sender, borrower, collateralToken, debtToken, collateralAmount, principal, rateBps, maturity, true);
        _pull(debtToken, msg.sender, principal);
        emit LoanOffered(offerId, msg.sender, borrower);
    }

    function cancelOffer(uint256 offerId) external {
        Offer storage o = offers[offerId];
        require(o.open, UnknownOffer(offerId));
        require(o.lender == msg.sender, NotYourOffer(offerId));
        o.open = false;
        _push(o.debtToken, msg.sender, o.principal);
        emit OfferCancelled(offerId);
    }

    /// Takes an offer: posts its collateral and receives its principal.
    function acceptOffer(uint256 offerId) external returns (uint256 loanId) {
        Offer storage o = offers[offerId];
        require(o.open && o.maturity > block.timestamp, UnknownOffer(offerId));
        require(o.borrower == address(0) || o.borrower == msg.sender, NotYourOffer(offerId));
        o.open = false;
        loanId = nextLoanId++;
        loans[loanId] = Loan({
            borrower: msg.sender,
            lender: o.lender,
            collateralToken: o.collateralToken,
            debtToken: o.debtToken,
            collateral: o.collateralAmount,
            principal: o.principal,
            interestOwed: 0,
            rateBps: o.rateBps,
            thresholdBps: liquidationThresholdBps,
            maturity: o.maturity,
            accruedAt: uint40(block.timestamp),
            state: State.Active
        });
        _pull(o.collateralToken, msg.sender, o.collateralAmount);
        _push(o.debtToken, msg.sender, o.principal);
        emit LoanOpened(
            loanId,
            msg.sender,
            o.lender,
            o.collateralToken,
            o.collateralAmount,
            o.debtToken,
            o.principal,
            o.rateBps,
            liquidationThresholdBps,
            o.maturity
        );
    }

    /// Anyone may top up a loan's collateral.
    function addCollateral(uint256 loanId, uint256 amount) external {
        Loan storage l = _active(loanId);
        require(amount > 0, ZeroAmount());
        l.collateral += amount;
        _pull(l.collateralToken, msg.sender, amount);
        emit CollateralAdded(loanId, msg.sender, amount, l.collateral);
    }

    /// The borrower takes collateral back, as long as the loan stays healthy.
    function withdrawCollateral(uint256 loanId, uint256 amount) external {
        Loan storage l = _active(loanId);
        require(msg.sender == l.borrower, NotBorrower(loanId));
        require(amount > 0 && amount <= l.collateral, ZeroAmount());
        _accrue(l);
        l.collateral -= amount;
        uint256 h = _health(l);
        require(h >= WAD, Unhealthy(loanId, h));
        _push(l.collateralToken, msg.sender, amount);
        emit CollateralWithdrawn(loanId, msg.sender, amount, l.collateral);
    }

    /// Pays interest first, then principal; takes at most what is owed (interest accrues by the
    /// second, so "everything" is any amount above it). Paying everything closes the loan and
    /// returns the collateral.
    function repay(uint256 loanId, uint256 amount) external {
        Loan storage l = _active(loanId);
        require(amount > 0, ZeroAmount());
        _accrue(l);
        uint256 owed = l.principal + l.interestOwed;
        if (amount > owed) amount = owed;
        uint256 interestPaid = amount < l.interestOwed ? amount : l.interestOwed;
        uint256 principalPaid = amount - interestPaid;
        l.interestOwed -= interestPaid;
        l.principal -= principalPaid;
        _pull(l.debtToken, msg.sender, amount);
        _push(l.debtToken, l.lender, amount);
        emit LoanRepaid(loanId, msg.sender, principalPaid, interestPaid, l.principal);
        if (l.principal == 0 && l.interestOwed == 0) {
            l.state = State.Repaid;
            uint256 back = l.collateral;
            l.collateral = 0;
            _push(l.collateralToken, l.borrower, back);
            emit CollateralWithdrawn(loanId, l.borrower, back, 0);
        }
    }

    /// Repays an unhealthy or overdue loan's whole debt to its lender and takes its collateral.
    function liquidate(uint256 loanId) external {
        Loan storage l = _active(loanId);
        _accrue(l);
        // Maturity first: an overdue loan is liquidatable without a price, so a token whose
        // price is gone (or never was) cannot keep an overdue loan alive.
        if (block.timestamp <= l.maturity) {
            uint256 h = _health(l);
            require(h < WAD, Healthy(loanId, h));
        }
        uint256 principal = l.principal;
        uint256 interest = l.interestOwed;
        uint256 seized = l.collateral;
        l.principal = 0;
        l.interestOwed = 0;
        l.collateral = 0;
        l.state = State.Liquidated;
        _pull(l.debtToken, msg.sender, principal + interest);
        _push(l.debtToken, l.lender, principal + interest);
        _push(l.collateralToken, msg.sender, seized);
        emit LoanLiquidated(loanId, msg.sender, principal, interest, seized);
    }

    /// Collateral value x threshold / debt value, 18 decimals (max when nothing is owed).
    function healthFactor(uint256 loanId) external view returns (uint256) {
        Loan memory l = loans[loanId];
        require(l.state == State.Active, NotActive(loanId));
        l.interestOwed += _interestSince(l);
        return _health(l);
    }

    function _active(uint256 loanId) private view returns (Loan storage l) {
        l = loans[loanId];
        require(l.state == State.Active, NotActive(loanId));
    }

    function _interestSince(Loan memory l) private view returns (uint256) {
        return (l.principal * l.rateBps * (block.timestamp - l.accruedAt)) / (10_000 * YEAR);
    }

    function _accrue(Loan storage l) private {
        l.interestOwed += _interestSince(l);
        l.accruedAt = uint40(block.timestamp);
    }

    function _health(Loan memory l) private view returns (uint256) {
        uint256 debt = l.principal + l.interestOwed;
        if (debt == 0) return type(uint256).max;
        uint256 collateralValue = oracle.valueOf(l.collateralToken, l.collateral);
        uint256 debtValue = oracle.valueOf(l.debtToken, debt);
        if (debtValue == 0) return type(uint256).max;
        return (collateralValue * l.thresholdBps * WAD) / (10_000 * debtValue);
    }

    function _pull(address token, address from, uint256 amount) private {
        _call(token, abi.encodeCall(IERC20Transfer.transferFrom, (from, address(this), amount)));
    }

    function _push(address token, address to, uint256 amount) private {
        _call(token, abi.encodeCall(IERC20Transfer.transfer, (to, amount)));
    }

    /// Accepts tokens that return true or nothing; anything else is a failed transfer.
    function _call(address token, bytes memory data) private {
        (bool ok, bytes memory ret) = token.call(data);
        require(ok && (ret.length == 0 || abi.decode(ret, (bool))) && token.code.length > 0, TokenTransferFailed(token));
    }
}
