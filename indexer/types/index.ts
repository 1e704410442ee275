/**
 * The types the indexer's stages share, below every stage but rpc/ (whose `Hex` they use): where
 * a log sits and what a decoded log is (`log.ts`), and the rows projectors make and the store
 * writes (`rows.ts`, `loan-rows.ts`, `clob-rows.ts`). Data only.
 */
export type { Decoded, EmitterRole, LogMeta } from './log';
export type {
  BalanceChange,
  BalanceDelta,
  BondEventRow,
  EventRow,
  ExclusiveFillUseRow,
  OrderBatch,
  OrderEvent,
  OrderIntentRow,
  OrderRow,
  OrderUpdate,
  PairRow,
  RowPosition,
  SettlementRow,
  TransferRow,
} from './rows';
export type { LoanBatch, LoanChange, LoanEventKind, LoanEventRow, LoanProjection, LoanRow, LoanState, LoanUpdate, PriceRow } from './loan-rows';
export type { BlockSpan, DailyBatch, DailyDelta, FillStat, SeriesChange, SeriesDelta, TraderDay } from './clob-rows';
