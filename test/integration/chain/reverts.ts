import { BaseError, ContractFunctionRevertedError } from 'viem';

/** The custom error name a contract call reverts with; fails when it does not revert or fails otherwise. */
export async function revertName(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (err) {
    const revert = err instanceof BaseError ? err.walk((e) => e instanceof ContractFunctionRevertedError) : null;
    if (revert instanceof ContractFunctionRevertedError) return revert.data?.errorName ?? revert.reason ?? 'unknown revert';
    throw err;
  }
  throw new Error('expected the call to revert');
}
