import { exclusiveFillAnnounceJob, exclusiveFillExpireJob, orderExpireJob, ordersRecordsSweepJob, ordersSweepJob, publishFillState } from '../../shared/orders';
import { handles, type BoundJob } from '../job-binding';
import { expireFillJob, expireOrderJob } from './order-expiry';
import { sweepOrderRecords } from './order-records-sweeper';
import { sweepOrders } from './order-sweeper';
import { scheduledReason } from '../sweep-report';

export const orderHandlers: BoundJob[] = [
  handles(orderExpireJob, (p, ctx) => expireOrderJob(ctx, p.order_id)),
  handles(exclusiveFillExpireJob, (p, ctx) => expireFillJob(ctx, p.exclusive_fill_id)),
  handles(exclusiveFillAnnounceJob, async (p, ctx) => {
    await publishFillState(ctx, p.exclusive_fill_id);
  }),
  handles(ordersSweepJob, async (_p, ctx) => {
    await sweepOrders(ctx, { reason: scheduledReason(ctx, 'order') });
  }),
  handles(ordersRecordsSweepJob, async (_p, ctx) => {
    await sweepOrderRecords(ctx);
  }),
];
