import { bondDepositedEvent, bondWithdrawalRequestedEvent, bondWithdrawnEvent } from '../../shared/chain/abis';
import { expectShape, topicAddress, uint, word } from '../decode/log-words';
import type { RpcLog } from '../rpc/rpc';
import type { ProjectedRow } from '../store/derived-tables';
import type { LogMeta, RowPosition } from '../types';
import { eventTable, indexedEvent } from './indexed-event';

/** The BondVault's events: makers' fill bonds deposited, asked back and withdrawn (docs/ORDERS.md). */
export const BOND_EVENTS = eventTable({
  /** BondVault: a maker added bond; `balance` is its new bond in the token. */
  BondDeposited: indexedEvent({
    abi: bondDepositedEvent,
    emitter: 'bondVault',
    tables: ['indexer_bond_events'],
    decode: (log) => decodeBond(log, 'BondDeposited'),
    project: (log, at) => [bondRow(log, at, 'deposit')],
  }),

  /**
   * BondVault: a maker asked to take `amount` out (its whole pending amount; 0 cancels). The
   * bond stays in the vault until the delay passes, but the API no longer counts the pending part.
   */
  BondWithdrawalRequested: indexedEvent({
    abi: bondWithdrawalRequestedEvent,
    emitter: 'bondVault',
    tables: ['indexer_bond_events'],
    decode(log) {
      expectShape(log, 3, 3, 'BondWithdrawalRequested');
      return {
        maker: topicAddress(log.topics[1]),
        token: topicAddress(log.topics[2]),
        amount: uint(word(log.data, 0)),
        balance: uint(word(log.data, 1)),
        withdrawableAt: uint(word(log.data, 2)),
      };
    },
    project: (log, at) => [bondRow(log, at, 'request', log.withdrawableAt)],
  }),

  /** BondVault: a maker took bond out; `balance` is its new bond in the token. */
  BondWithdrawn: indexedEvent({
    abi: bondWithdrawnEvent,
    emitter: 'bondVault',
    tables: ['indexer_bond_events'],
    decode: (log) => decodeBond(log, 'BondWithdrawn'),
    project: (log, at) => [bondRow(log, at, 'withdraw')],
  }),
});

/** Deposits and withdrawals share one layout: maker and token indexed, then amount and the new balance. */
function decodeBond(log: RpcLog, kind: string) {
  expectShape(log, 3, 2, kind);
  return { maker: topicAddress(log.topics[1]), token: topicAddress(log.topics[2]), amount: uint(word(log.data, 0)), balance: uint(word(log.data, 1)) };
}

function bondRow(
  log: ReturnType<typeof decodeBond> & { meta: LogMeta },
  at: RowPosition,
  kind: 'deposit' | 'request' | 'withdraw',
  withdrawableAt: bigint | null = null,
): ProjectedRow {
  return {
    table: 'indexer_bond_events',
    row: {
      ...at,
      vault: log.meta.address,
      maker: log.maker,
      token: log.token,
      kind,
      amount: log.amount.toString(),
      balance: log.balance.toString(),
      withdrawable_at: withdrawableAt === null ? null : withdrawableAt.toString(),
    },
  };
}
