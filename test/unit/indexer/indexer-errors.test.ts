import { readdirSync } from 'node:fs';
import path from 'node:path';
import { ChainMismatchError, errorCode, FatalIndexerError, ReorgTooDeepError, RetryableIndexerError } from '../../../indexer/errors';
import { JsonRpcError, RpcFailureError, RpcRequestRejectedError, RpcUnavailableError } from '../../../indexer/rpc/rpc-errors';
import { ChainInvariantError } from '../../../indexer/sync/unfinalized-chain';
import { INDEXER_ERROR_CODES } from '../../../shared/indexed/indexer-error-codes';

type ErrorClass = new (...args: unknown[]) => Error;

/** Every module of the indexer role. */
function modulesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? modulesUnder(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}

/** Every error class the indexer's modules export, found by loading them (a new one is found without being listed). */
const exported: ErrorClass[] = [
  ...new Set(
    modulesUnder(path.resolve(__dirname, '../../../indexer'))
      .flatMap((file) => Object.values(require(file) as Record<string, unknown>))
      .filter((v): v is ErrorClass => typeof v === 'function' && v.prototype instanceof Error),
  ),
];
/** The raw shape of a node's JSON-RPC error: `classifyRpcError` turns it into an indexer error inside `rpc.ts`. */
const RAW = new Set<ErrorClass>([JsonRpcError as unknown as ErrorClass]);
const isBase = (c: ErrorClass) => exported.some((d) => d !== c && d.prototype instanceof c);
const concrete = exported.filter((c) => !RAW.has(c) && !isBase(c));

describe('indexer errors', () => {
  it('finds the error classes of every folder of the indexer', () => {
    expect(concrete.map((c) => c.name)).toEqual(
      expect.arrayContaining(['ReorgTooDeepError', 'RangeTooLargeError', 'RpcUnavailableError', 'ChainInvariantError']),
    );
  });

  it.each(concrete.map((c) => [c.name, c] as const))('%s is either retryable or fatal, and carries a status code', (_name, C) => {
    const err = Reflect.construct(C, [1, 2, 3, 4]) as Error & { code?: unknown };
    expect([err instanceof RetryableIndexerError, err instanceof FatalIndexerError].filter(Boolean)).toHaveLength(1);
    expect(Object.keys(INDEXER_ERROR_CODES)).toContain(err.code);
    expect(errorCode(err)).toBe(err.code);
  });

  it('halts on exactly a reorg beyond the hard limit, a wrong chain and a broken window', () => {
    const fatal = concrete.filter((c) => c.prototype instanceof FatalIndexerError);
    expect(fatal.map((c) => c.name).sort()).toEqual(['ChainInvariantError', 'ChainMismatchError', 'ReorgTooDeepError']);
    expect(new ReorgTooDeepError(31337, 90, 50, 12).action).toBe('npm run ops -- indexer:resync --chain 31337 --from-block 12');
    expect(new ChainMismatchError(1, 2).action).toBeNull();
    expect(new ChainInvariantError('x').code).toBe('invariant_broken');
  });

  it('marks the RPC down only for failures on every URL', () => {
    const rpcDown = concrete.filter((c) => c.prototype instanceof RpcFailureError).map((c) => c.name);
    expect(rpcDown.sort()).toEqual(['RpcRequestRejectedError', 'RpcUnavailableError']);
    expect(new RpcUnavailableError('eth_chainId', 2, 'refused')).toMatchObject({
      code: 'rpc_unavailable',
      message: 'eth_chainId failed after 2 attempts on every RPC URL: refused',
    });
    expect(new RpcRequestRejectedError('eth_call', -32602, 'bad').message).toBe('eth_call rejected by the node (code -32602): bad');
  });

  it('codes errors the indexer did not raise: a lost database connection, else internal', () => {
    expect(errorCode(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe('database_unavailable');
    expect(errorCode({ message: 'query failed', driverError: { code: '57P01' } })).toBe('database_unavailable');
    expect(errorCode(new Error('Connection terminated unexpectedly'))).toBe('database_unavailable');
    expect(errorCode(new TypeError('x is undefined'))).toBe('internal');
    expect(errorCode(new JsonRpcError(-32602, 'raw'))).toBe('internal');
    expect(errorCode('thrown string')).toBe('internal');
  });
});
