import { concat, domainSeparator, encodeAbiParameters, keccak256, stringToBytes, type Address, type Hex } from 'viem';
import type { LocalAccount } from 'viem/accounts';
import { DUTCH_AWARD_TYPES, dutchFillDomain, type DutchAward } from '../../wire/src/protocol/typed-data';

const AWARD_FIELDS = DUTCH_AWARD_TYPES.DutchAward;
/** keccak256 of `DutchAward(bytes32 requestDigest,...)`, built from the one definition in typed-data.ts. */
const AWARD_TYPE_HASH = keccak256(stringToBytes(`DutchAward(${AWARD_FIELDS.map((f) => `${f.type} ${f.name}`).join(',')})`));
const AWARD_ABI = [{ type: 'bytes32' }, ...AWARD_FIELDS.map((f) => ({ type: f.type }))];

/**
 * Signs Dutch awards for one auctioneer key. Equal, byte for byte, to `signTypedData` over
 * `dutchAwardTypedData` (a test checks it on random awards), at about half the CPU: the domain
 * separator of each (chain, mothership) is hashed once and kept, the award's struct hash is one
 * flat ABI encoding (all its fields are static), and the digest is signed directly, which is
 * what signTypedData does after validating and hashing the whole typed-data document each time.
 */
export class DutchAwardSigner {
  private readonly domains = new Map<string, Hex>();

  constructor(private readonly account: LocalAccount) {}

  get address(): Address {
    return this.account.address;
  }

  /** The award's EIP-712 digest (equals dutchAwardDigest). */
  digest(chainId: number, mothership: Address, award: DutchAward): Hex {
    const struct = keccak256(encodeAbiParameters(AWARD_ABI, [AWARD_TYPE_HASH, ...AWARD_FIELDS.map((f) => award[f.name])]));
    return keccak256(concat(['0x1901', this.domainOf(chainId, mothership), struct]));
  }

  /** The auctioneer's signature of the award (equals signTypedData(dutchAwardTypedData(...))). */
  sign(chainId: number, mothership: Address, award: DutchAward): Promise<Hex> {
    if (!this.account.sign) throw new Error('the auctioneer key cannot sign digests');
    return this.account.sign({ hash: this.digest(chainId, mothership, award) });
  }

  private domainOf(chainId: number, mothership: Address): Hex {
    const key = `${chainId}:${mothership.toLowerCase()}`;
    let sep = this.domains.get(key);
    if (!sep) {
      sep = domainSeparator({ domain: dutchFillDomain(chainId, mothership) });
      this.domains.set(key, sep);
    }
    return sep;
  }
}
