import { createRangeSizer, parseSuggestedSpan } from '../../../indexer/rpc/log-range';
import { classifyRpcError, JsonRpcError } from '../../../indexer/rpc/rpc-errors';
import { HttpRequestError, TimeoutError } from 'viem';

describe('parseSuggestedSpan', () => {
  it.each([
    ['Log response size exceeded. this block range should work: [0x10, 0x2f]', 32],
    ['query returned more than 10000 results. Try with this block range [0x1000, 0x1063].', 100],
    ['requested too many blocks from 0 to 50000, maximum is set to 2048', 2047],
    ['Max range: 3000', 2999],
    ['eth_getLogs is limited to a 10,000 range', 9999],
    ['exceed maximum block range: 50000', 49999],
    ['please limit the query to at most 1000 blocks', 999],
    ['eth_getLogs range is too large, max is 10k blocks', 9999],
    ['You can make eth_getLogs requests with up to a 500 block range', 499],
    ['block range exceeds 1000', 999],
    ['range exceeds the range allowed for your plan (5000 > 2000)', 2000],
  ])('%s -> %d', (message, span) => {
    expect(parseSuggestedSpan(message)).toBe(span);
  });

  it.each(['query returned more than 10000 results', 'block range too large', 'response too large'])('no hint in %s', (message) => {
    expect(parseSuggestedSpan(message)).toBeNull();
  });
});

describe('createRangeSizer', () => {
  it('doubles until the first refusal, then grows gently', () => {
    const s = createRangeSizer({ initial: 100, max: 100_000, targetLogs: 1000 });
    s.onSuccess(100, 0);
    expect(s.span).toBe(200);
    s.onTooLarge(200, null);
    expect(s.span).toBe(100);
    s.onSuccess(100, 0);
    expect(s.span).toBe(125);
  });

  it('caps the span for good at a provider hint', () => {
    const s = createRangeSizer({ initial: 5000, max: 100_000, targetLogs: 1_000_000 });
    s.onTooLarge(5000, 2000);
    expect(s.span).toBe(2000);
    for (let i = 0; i < 10; i++) s.onSuccess(s.span, 0);
    expect(s.span).toBe(2000);
  });

  it('shrinks toward the target log count so one batch stays bounded in memory', () => {
    const s = createRangeSizer({ initial: 1000, max: 100_000, targetLogs: 1000 });
    s.onSuccess(1000, 8000);
    expect(s.span).toBe(125);
    s.onSuccess(125, 1000);
    expect(s.span).toBe(125);
  });

  it('never exceeds the configured maximum nor drops below one block', () => {
    const s = createRangeSizer({ initial: 10, max: 30, targetLogs: 1000 });
    for (let i = 0; i < 5; i++) s.onSuccess(s.span, 0);
    expect(s.span).toBe(30);
    for (let i = 0; i < 10; i++) s.onTooLarge(s.span, null);
    expect(s.span).toBe(1);
  });
});

describe('classifyRpcError', () => {
  const http = (status: number) => new HttpRequestError({ url: 'http://x', status, body: {} });
  it('groups failures by what helps', () => {
    expect(classifyRpcError(new TimeoutError({ body: {}, url: 'http://x' }), false)).toBe('retryable');
    expect(classifyRpcError(http(429), false)).toBe('retryable');
    expect(classifyRpcError(http(503), false)).toBe('retryable');
    expect(classifyRpcError(http(401), false)).toBe('rejected');
    expect(classifyRpcError(new HttpRequestError({ url: 'http://x', cause: new Error('fetch failed') }), false)).toBe('retryable');
    expect(classifyRpcError(new JsonRpcError(-32602, 'invalid params'), false)).toBe('rejected');
    expect(classifyRpcError(new JsonRpcError(-32005, 'limit exceeded'), false)).toBe('retryable');
    expect(classifyRpcError(new JsonRpcError(-32005, 'query returned more than 10000 results'), true)).toBe('range');
    expect(classifyRpcError(new JsonRpcError(-32000, 'block range is too wide'), true)).toBe('range');
    expect(classifyRpcError(new JsonRpcError(-32000, 'block range is too wide'), false)).toBe('retryable');
  });
});
