/*
 * @options-rfq/wire: what the options RFQ server and its clients share, imported by both. The
 * EIP-712 typed data and hashes, the zod schemas of the JSON that goes over HTTP and the socket,
 * the error body, and the error a failed parse throws. Depends on zod and viem only.
 */
export * from './protocol';
export * from './formats';
export * from './quote.wire';
export * from './dutch.wire';
export * from './order.wire';
export * from './order-bodies';
export * from './quote-answers';
export * from './identity.wire';
export * from './public.wire';
export * from './pubsub.wire';
export { errorBodySchema, type ErrorBody } from './errors/error-body';
export { AppError, ValidationError, type FieldProblem } from './errors/app-error';
export type { IntentInput, QuoteRequestBody, PackageOfferBody } from './quote-requests';
