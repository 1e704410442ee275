import { ORDER_EXAMPLE } from '../../../api/routes/orders.http';
import { orderJson, parseOrderRequest } from '../../../shared/orders';
import { eip712TypeString, intentDataHash, ORDER_INTENT_TYPES, orderIntentFromJson, orderIntentHash } from '../../../shared/protocol';
import { keccak256, toHex } from 'viem';

/** The values docs/PROTOCOL.md ("OrderIntent") shows; the chain agrees with the code in hash-parity.test.ts. */
describe('the OrderIntent of docs/PROTOCOL.md', () => {
  const now = ORDER_EXAMPLE.data.intentStartTime;
  const ONE_YEAR = 365 * 86400;

  it('has the documented type string and typehash', () => {
    const type = eip712TypeString(ORDER_INTENT_TYPES, 'OrderIntent');
    expect(type).toMatch(/^OrderIntent\(address from,address to,uint64 noncePrefix,uint256 nonce,address options6909Contract,/);
    expect(keccak256(toHex(type))).toBe('0x1fe27b96b94b47fd7c45ee3fe45134ef847f620dcc354ecddd1beb4d592b33c0');
  });

  it('hashes the API example to the documented intent hash and intent data hash', () => {
    const { intent } = parseOrderRequest(ORDER_EXAMPLE, now, ONE_YEAR);
    expect(orderIntentHash(intent)).toBe('0x9e10c46dd504a75ee0dd90ac61d7ffd2e848dc86cf446ae5182c30d580efbb0d');
    expect(intentDataHash([orderIntentHash(intent)])).toBe('0x74fd5f5a7a61f91a0c4f08a78464b9609dc963686228ec8c7f097056d54451e1');
  });

  it('round-trips through its JSON form without changing the hash', () => {
    const { intent } = parseOrderRequest(ORDER_EXAMPLE, now, ONE_YEAR);
    expect(orderIntentFromJson(orderJson(intent))).toEqual(intent);
  });

  it('changes with any field: the nonce, the owner, the expiry behaviour', () => {
    const { intent } = parseOrderRequest(ORDER_EXAMPLE, now, ONE_YEAR);
    const base = orderIntentHash(intent);
    expect(orderIntentHash({ ...intent, nonce: intent.nonce + 1n })).not.toBe(base);
    expect(orderIntentHash({ ...intent, noncePrefix: 1n })).not.toBe(base);
    expect(orderIntentHash({ ...intent, orderOnExpiry: 1 })).not.toBe(base);
  });
});
