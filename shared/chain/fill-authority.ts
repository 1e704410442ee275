import {
  AbiDecodingDataSizeTooSmallError,
  AbiDecodingZeroDataError,
  BaseError,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  InvalidBytesBooleanError,
  InvalidHexBooleanError,
  zeroAddress,
  type Address,
  type Chain,
  type PublicClient,
  type Transport,
} from 'viem';
import { fillAuthorityAbi } from './abis';
import { localPublicClient } from './clients';

/** Where to ask: the network's RPC and chain id. */
export interface FillAuthorityNetwork {
  chainId: number;
  rpcUrl: string;
}

/** What a Dutch request's `requiredAuthority` turned out to be on chain. */
export type AuthorityProbe = 'fill_authority' | 'no_code' | 'not_fill_authority';

const REFUSALS = [
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  AbiDecodingZeroDataError,
  AbiDecodingDataSizeTooSmallError,
  InvalidHexBooleanError,
  InvalidBytesBooleanError,
];

/**
 * The contract's own refusal (a revert, no code, an answer that is not a bool), as the
 * mothership would see it. Anything else (a transport failure, a timeout, an RPC error) is no
 * answer at all, and the caller says so instead of refusing.
 */
function isContractRefusal(err: unknown): boolean {
  return err instanceof BaseError && Boolean(err.walk((e) => REFUSALS.some((E) => e instanceof E)));
}

/**
 * Asks IFillAuthority contracts (shared/chain/contracts/FillAuthority.sol) the one question the
 * mothership asks at fill time: may this address fill? A refusal by the contract (revert, no
 * code, malformed answer) is a "no", as on chain; an RPC that does not answer throws, so the
 * caller can say "try again" rather than "refused".
 */
export class FillAuthorityReader {
  private readonly clients = new Map<string, PublicClient<Transport, Chain>>();

  constructor(private readonly timeoutMs: number) {}

  /** IFillAuthority(authority).isAllowedFiller(filler); false when the contract refuses to answer. Throws when the RPC is unreachable. */
  async isAllowedFiller(net: FillAuthorityNetwork, authority: Address, filler: Address): Promise<boolean> {
    try {
      return await this.client(net).readContract({ address: authority, abi: fillAuthorityAbi, functionName: 'isAllowedFiller', args: [filler] });
    } catch (err) {
      if (isContractRefusal(err)) return false;
      throw err;
    }
  }

  /** Whether `authority` is a contract that answers isAllowedFiller(address). Throws when the RPC is unreachable. */
  async probe(net: FillAuthorityNetwork, authority: Address): Promise<AuthorityProbe> {
    const client = this.client(net);
    const code = await client.getCode({ address: authority });
    if (!code || code === '0x') return 'no_code';
    try {
      await client.readContract({ address: authority, abi: fillAuthorityAbi, functionName: 'isAllowedFiller', args: [zeroAddress] });
      return 'fill_authority';
    } catch (err) {
      if (isContractRefusal(err)) return 'not_fill_authority';
      throw err;
    }
  }

  private client(net: FillAuthorityNetwork): PublicClient<Transport, Chain> {
    const key = `${net.chainId} ${net.rpcUrl}`;
    let c = this.clients.get(key);
    if (!c) {
      c = localPublicClient(net.rpcUrl, net.chainId, { timeoutMs: this.timeoutMs });
      this.clients.set(key, c);
    }
    return c;
  }
}
