export { OrderService, encodeCursor, decodeCursor } from './order.service';
export { ExclusiveFillService } from './exclusive-fill.service';
export { OrderRepository } from './order.repository';
export { OrderRecords, recorderKey, type RetentionKind, type SweptBatch } from './order-records.repository';
export type { OrderFilter } from './order.repository';
export { parseOrderRequest, parseOrderRequestBySchema, orderJson } from './order-request';
export { MAX_DECAY_BPS_PER_SECOND } from '../../wire/src/order-bodies';
export type { OrderRequest, OrderJson, NumberForms } from './order-request';
export {
  cancelOrder,
  expireExclusiveFill,
  expireOrder,
  expireDueOrders,
  markFillsUsed,
  revertUsedFills,
  reopenChainClosedOrders,
  ORDER_STATES,
  EFFECTIVE_STATE,
  EFFECTIVE_CLOSED_AT,
  ON_CHAIN_JOIN,
  EXCLUSIVE_FILL_STATES,
} from './order-state';
export type { FillUse } from './order-state';
export { exclusiveFillAnnounceJob, exclusiveFillExpireJob, orderExpireJob, ordersRecordsSweepJob, ordersSweepJob, ORDERS_QUEUE } from './order.jobs';
export { publishFillState, FILL_EVENTS } from './order-notifier';
export * from './order.views';
export type { ExclusiveFillRow, ExclusiveFillState, OnChainOrder, OrderRow, OrderState } from './order.types';
export { exclusiveFillEventWire, exclusiveFillWire, ON_CHAIN_ORDER_STATES, ORDER_PLACEMENTS, orderWire } from '../../wire/src/order.wire';
export { FILL_STATE_SQL, ON_CHAIN_STATE_SQL, ORDER_STATE_SQL } from './order.sql';
export type { OnChainOrderState, OrderPlacement } from '../../wire/src/order.wire';
export * as orderJobs from './order.jobs';
