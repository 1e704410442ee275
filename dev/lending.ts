import { parseEventLogs, type Account, type Address, type Chain, type Hash, type PublicClient, type Transport, type WalletClient } from 'viem';
import { lendingMarketAbi, loanOpenedEvent, mockErc20Abi, priceOracleAbi } from '../shared/chain/abis';
import type { DeployedAddresses } from './deploy';

type Wallet = WalletClient<Transport, Chain, Account>;

/** Terms of one loan offer on the reference lending market (raw token units). */
export interface LoanTerms {
  collateralToken: Address;
  collateralAmount: bigint;
  debtToken: Address;
  principal: bigint;
  rateBps: number;
  /** Unix seconds. */
  maturity: number;
}

/**
 * The reference lending market driven from wallets, for the loans demo and tests: each call
 * sends its transactions and waits for them to succeed (throws otherwise). The deployer
 * (Hardhat account 0) owns the price oracle.
 */
export function lendingActions(publicClient: PublicClient<Transport, Chain>, addresses: Pick<DeployedAddresses, 'lendingMarket' | 'priceOracle'>) {
  const market = { address: addresses.lendingMarket, abi: lendingMarketAbi } as const;

  const mined = async (hash: Hash) => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
    return receipt;
  };

  /**
   * A market call on an existing loan, with room in its gas limit: what it costs depends on the
   * block's time (interest is written only when time has passed since the last accrual), and the
   * devchain keeps wall-clock time, so the block that runs the call can be a second later than
   * the one its gas was estimated on.
   */
  const loanCall = async (wallet: Wallet, functionName: 'repay' | 'liquidate' | 'addCollateral' | 'withdrawCollateral', args: readonly bigint[]) => {
    const call = { ...market, functionName, args, account: wallet.account } as never;
    const gas = await publicClient.estimateContractGas(call);
    return mined(await wallet.writeContract({ ...(call as object), gas: gas + gas / 2n } as never));
  };

  /** Faucets `wallet` until it holds `amount` of `token`, and lets the market pull that much. */
  const fundAndApprove = async (wallet: Wallet, token: Address, amount: bigint) => {
    const t = { address: token, abi: mockErc20Abi } as const;
    while ((await publicClient.readContract({ ...t, functionName: 'balanceOf', args: [wallet.account.address] })) < amount) {
      await mined(await wallet.writeContract({ ...t, functionName: 'faucet' }));
    }
    await mined(await wallet.writeContract({ ...t, functionName: 'approve', args: [addresses.lendingMarket, amount] }));
  };

  return {
    /** Sets the USD price (18 decimals) of one whole `token`; `owner` must be the oracle's deployer. */
    async setPrice(owner: Wallet, token: Address, priceWad: bigint): Promise<void> {
      await mined(await owner.writeContract({ address: addresses.priceOracle, abi: priceOracleAbi, functionName: 'setPrice', args: [token, priceWad] }));
    },

    /** The lender offers `terms` to the borrower, who accepts: returns the new loan's id. */
    async openLoan(lender: Wallet, borrower: Wallet, terms: LoanTerms): Promise<bigint> {
      await fundAndApprove(lender, terms.debtToken, terms.principal);
      const offered = await mined(
        await lender.writeContract({
          ...market,
          functionName: 'offerLoan',
          args: [borrower.account.address, terms.collateralToken, terms.collateralAmount, terms.debtToken, terms.principal, terms.rateBps, terms.maturity],
        }),
      );
      const offerId = BigInt(offered.logs.find((l) => l.address.toLowerCase() === addresses.lendingMarket.toLowerCase())!.topics[1]!);
      await fundAndApprove(borrower, terms.collateralToken, terms.collateralAmount);
      const accepted = await mined(await borrower.writeContract({ ...market, functionName: 'acceptOffer', args: [offerId] }));
      const [opened] = parseEventLogs({ abi: [loanOpenedEvent], logs: accepted.logs });
      return opened.args.loanId;
    },

    async addCollateral(from: Wallet, token: Address, loanId: bigint, amount: bigint): Promise<void> {
      await fundAndApprove(from, token, amount);
      await loanCall(from, 'addCollateral', [loanId, amount]);
    },

    async withdrawCollateral(borrower: Wallet, loanId: bigint, amount: bigint): Promise<void> {
      await loanCall(borrower, 'withdrawCollateral', [loanId, amount]);
    },

    async repay(payer: Wallet, debtToken: Address, loanId: bigint, amount: bigint): Promise<void> {
      await fundAndApprove(payer, debtToken, amount);
      await loanCall(payer, 'repay', [loanId, amount]);
    },

    /** Repays the whole debt (principal and interest as of the next block, with a margin for the block's time). */
    async repayAll(payer: Wallet, debtToken: Address, loanId: bigint): Promise<void> {
      const [, , , , , principal, interestOwed, rateBps] = await publicClient.readContract({ ...market, functionName: 'loans', args: [loanId] });
      // Interest accrues per second: allow a minute of it; the market pulls only what is owed.
      const margin = (principal * BigInt(rateBps) * 60n) / (10_000n * 365n * 86_400n) + 1n;
      await fundAndApprove(payer, debtToken, principal + interestOwed + margin);
      await loanCall(payer, 'repay', [loanId, principal + interestOwed + margin]);
    },

    /** Pays an unhealthy or overdue loan's debt and takes its collateral. */
    async liquidate(liquidator: Wallet, debtToken: Address, loanId: bigint): Promise<void> {
      const [, , , , , principal, interestOwed, rateBps] = await publicClient.readContract({ ...market, functionName: 'loans', args: [loanId] });
      const margin = (principal * BigInt(rateBps) * 60n) / (10_000n * 365n * 86_400n) + 1n;
      await fundAndApprove(liquidator, debtToken, principal + interestOwed + margin);
      await loanCall(liquidator, 'liquidate', [loanId]);
    },

    async healthFactor(loanId: bigint): Promise<bigint> {
      return publicClient.readContract({ ...market, functionName: 'healthFactor', args: [loanId] });
    },
  };
}

export type LendingActions = ReturnType<typeof lendingActions>;
