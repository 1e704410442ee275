// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

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

    error NotMothership();
    error InsufficientBalance(address owner, uint256 id);
    error InsufficientPermission(address spender, uint256 id);
    error ZeroAmount();
    error UnknownOrder(uint256 orderId);
    error NotOrderOwner(uint256 orderId);
    error OverFill(uint256 orderId, uint256 remaining);

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

    /// The caller takes the other side of `amount` of an open order.
    function fillOrder(uint256 orderId, uint256 amount) external {
        Order storage o = orders[orderId];
        require(o.owner != address(0), UnknownOrder(orderId));
        require(amount > 0, ZeroAmount());
        require(amount <= o.remaining, OverFill(orderId, o.remaining));
        o.remaining -= amount;
        _mint(o.isBuy ? o.owner : msg.sender, o.id, amount);
        emit OrderFilled(orderId, o.owner, msg.sender, o.id, amount, o.price, o.remaining);
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
