import { getAddress, isAddress } from 'viem';
import type { TopicKey } from '../platform/event-bus';
import { hashStreamToken, STREAM_TOKEN_PATTERN } from '../platform/stream-tokens';

/**
 * The three ways a topic is named, each written once: by chain (`quotes:<chain_id>:requests`),
 * by wallet (`rfq_maker:<address>`), by stream token (`rfq_stream:<token>`). A shape knows the
 * name clients write, how it parses, and the key events are stored and routed under. The two
 * differ only for token-named topics: the token is a secret and workers only ever hold its
 * sha-256, so those topics are keyed by the hash.
 */
export interface TopicName<P extends object, A, H = A> {
  /** Which of the three shapes: a token-named topic is private to the holder of its token. */
  shape: 'chain' | 'address' | 'token';
  /** The name as the docs write it, e.g. `quotes:<chain_id>:requests`. */
  template: string;
  /** A client-visible name's parameter and canonical key; null when the name is not of this shape. */
  parse(name: string): (P & { key: TopicKey }) | null;
  /** The client-visible name from its parameter (chain id, address, raw token). */
  format(arg: A): string;
  /** The key from what a publisher holds (chain id, address, the token's sha-256). */
  key(held: H): TopicKey;
}

export type ChainParam = { chainId: number };
export type AddressParam = { address: `0x${string}` };
export type TokenParam = { token: string };

const asKey = (s: string) => s as TopicKey;
const CHAIN = '([1-9][0-9]{0,15})';
const HASH = /^[0-9a-f]{64}$/;

function requireChainId(chainId: number): number {
  if (!Number.isSafeInteger(chainId) || chainId < 1) throw new Error(`bad chain id ${chainId}`);
  return chainId;
}

function requireHash(tokenHash: string): string {
  if (!HASH.test(tokenHash)) throw new Error('a stream token hash is 64 lower-case hex digits (hashStreamToken)');
  return tokenHash;
}

/** `<prefix>:<chain_id>:<suffix>`: one topic per chain. */
export function chainNamed(prefix: string, suffix: string): TopicName<ChainParam, number> {
  const re = new RegExp(`^${prefix}:${CHAIN}:${suffix}$`);
  const format = (chainId: number) => `${prefix}:${chainId}:${suffix}`;
  return {
    shape: 'chain',
    template: `${prefix}:<chain_id>:${suffix}`,
    parse(name) {
      const m = re.exec(name);
      if (!m) return null;
      const chainId = Number(m[1]);
      return Number.isSafeInteger(chainId) ? { key: asKey(format(chainId)), chainId } : null;
    },
    format,
    key: (chainId) => asKey(format(requireChainId(chainId))),
  };
}

/** `<kind>:<address>`: one topic per wallet. Addresses appear checksummed, as everywhere in the API; joins accept any case. */
export function addressNamed(kind: string): TopicName<AddressParam, string> {
  const re = new RegExp(`^${kind}:(0x[0-9a-fA-F]{40})$`);
  const format = (address: string) => `${kind}:${getAddress(address)}`;
  return {
    shape: 'address',
    template: `${kind}:<address>`,
    parse(name) {
      const m = re.exec(name);
      if (!m || !isAddress(m[1], { strict: false })) return null;
      const address = getAddress(m[1]);
      return { key: asKey(`${kind}:${address}`), address };
    },
    format,
    key: (address) => asKey(format(address)),
  };
}

/**
 * `<kind>:<stream token>`: a private topic whose name is its credential. Keyed by
 * `<kind>:#<sha-256 of the token>`, so no key, log line or metric ever holds the token.
 * Publishers hold only the hash (what a quote or explore row stores).
 */
export function tokenNamed(kind: string): TopicName<TokenParam, string, string> {
  const re = new RegExp(`^${kind}:(.+)$`);
  const keyOfHash = (tokenHash: string) => asKey(`${kind}:#${requireHash(tokenHash)}`);
  return {
    shape: 'token',
    template: `${kind}:<stream_token>`,
    parse(name) {
      const m = re.exec(name);
      if (!m || !STREAM_TOKEN_PATTERN.test(m[1])) return null;
      return { key: keyOfHash(hashStreamToken(m[1])), token: m[1] };
    },
    format: (token) => `${kind}:${token}`,
    key: keyOfHash,
  };
}

/** The token hash a token-named key carries; null for keys of other shapes. */
export function tokenHashOfKey(key: TopicKey): string | null {
  const at = key.indexOf(':#');
  return at < 0 ? null : key.slice(at + 2);
}
