import calculateSlot from 'cluster-key-slot';
import { isLiveMaster, keySlot, ownsSlot, parseClusterNodes, tagForSlot } from '../../../shared/platform/redis';

/**
 * The slot function the shard markers place their keys with (shared/platform/redis/cluster-slots.ts),
 * checked against the one ioredis routes by.
 */
describe('cluster slots', () => {
  it('hashes keys as the cluster does, hash tags included', () => {
    const keys = ['a', 'rfq:bull:{quotes}:wait', 'ev:seq:{quotes:31337:requests}', 'x{}y', '{}', 'foo{bar}{zap}', 'a{b', '{{x}}', 'é☃{ü}'];
    for (let i = 0; i < 5000; i++) keys.push(`k:${i}:${(i * 7919).toString(36)}${i % 3 === 0 ? `:{t${i}}` : ''}`);
    for (const k of keys) expect([k, keySlot(k)]).toEqual([k, calculateSlot(k)]);
  });

  it('finds a hash tag for every slot', () => {
    for (let slot = 0; slot < 16_384; slot += 97) expect(calculateSlot(`marker:{${tagForSlot(slot)}}`)).toBe(slot);
    expect(calculateSlot(`{${tagForSlot(16_383)}}`)).toBe(16_383);
    expect(() => tagForSlot(16_384)).toThrow(/out of range/);
  });

  it('reads CLUSTER NODES: masters, replicas, failing nodes and slot ranges', () => {
    const nodes = parseClusterNodes(
      [
        'aaa 127.0.0.1:7000@17000 myself,master - 0 0 1 connected 0-5460 [5461->-bbb]',
        'bbb 127.0.0.1:7001@17001 master - 0 0 2 connected 5461-10922 12000',
        'ccc 127.0.0.1:7002@17002 master,fail - 0 0 3 disconnected',
        'ddd 127.0.0.1:7003@17003 slave aaa 0 0 1 connected',
        'eee 127.0.0.1:7004@17004 master - 0 0 4 connected 10923-11999 12001-16383',
        'fff 127.0.0.1:7005@17005 master,fail? - 0 0 5 connected 12002',
        '',
      ].join('\n'),
    );
    expect(nodes.map((n) => [n.id, n.address, isLiveMaster(n)])).toEqual([
      ['aaa', '127.0.0.1:7000', true],
      ['bbb', '127.0.0.1:7001', true],
      ['ccc', '127.0.0.1:7002', false],
      ['ddd', '127.0.0.1:7003', false],
      ['eee', '127.0.0.1:7004', true],
      // only suspected by the node asked: it still serves its slots
      ['fff', '127.0.0.1:7005', true],
    ]);
    expect(nodes[0].slots).toEqual([[0, 5460]]);
    expect(nodes[3].masterId).toBe('aaa');
    expect(ownsSlot(nodes[1], 12000)).toBe(true);
    expect(ownsSlot(nodes[1], 12001)).toBe(false);
    expect(ownsSlot(nodes[4], 12001)).toBe(true);
  });
});
