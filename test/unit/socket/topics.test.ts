import { parseTopic, quotesRequestsTopic, rfqMakerTopic, tokenTopicKey, topicRefOf, topics } from '../../../shared/events';
import { hashStreamToken } from '../../../shared/platform/stream-tokens';

const token = 'Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWpr';
const addr = '0x52908400098527886E0F7030069857D2E4169EE7';

describe('topic names', () => {
  it('parses every joinable topic of the spec to a kind and a key', () => {
    expect(parseTopic('quotes:31337:requests')).toEqual({ kind: 'quotes_requests', key: 'quotes:31337:requests', chainId: 31337 });
    expect(parseTopic(`rfq_maker:${addr.toLowerCase()}`)).toEqual({ kind: 'rfq_maker', key: `rfq_maker:${addr}`, address: addr });
    for (const kind of ['rfq_stream', 'explore_clob_stream', 'explore_loan_stream'] as const) {
      expect(parseTopic(`${kind}:${token}`)).toEqual({ kind, key: `${kind}:#${hashStreamToken(token)}`, token });
    }
    expect(parseTopic('margin:1:requests')).toMatchObject({ kind: 'margin_requests' });
    expect(parseTopic(`margin_lender:${addr}`)).toMatchObject({ kind: 'margin_lender' });
    expect(parseTopic(`margin_rfq_stream:${token}`)).toMatchObject({ kind: 'margin_rfq_stream' });
  });

  it('refuses what is not a topic of ours', () => {
    for (const t of [
      '',
      'phoenix',
      'quotes:0:requests',
      'quotes:01:requests',
      'quotes:1:request',
      'quotes:99999999999999999:requests',
      'rfq_maker:0x123',
      'rfq_maker:0xZZ08400098527886E0F7030069857D2E4169EE7',
      'rfq_stream:short',
      `rfq_stream:${token}!`,
      `other:${token}`,
      `rfq_stream:${'a'.repeat(300)}`,
    ]) {
      expect(parseTopic(t)).toBeNull();
    }
  });

  it('keys a token topic by the token hash, never the token, the same from either side', () => {
    const ref = topicRefOf(`rfq_stream:${token}`)!;
    expect(ref).toEqual(topics.rfqStream(hashStreamToken(token)));
    expect(ref.key).not.toContain(token);
    expect(tokenTopicKey('rfq', hashStreamToken(token))).toBe(ref.key);
    expect(tokenTopicKey('explore_loan', hashStreamToken(token))).toBe(topics.exploreLoanStream(hashStreamToken(token)).key);
    expect(() => topics.rfqStream(token)).toThrow(/hash/);
    expect(topicRefOf('margin:1:requests')).toBeNull();
  });

  it('names topics as the API returns them: checksummed addresses', () => {
    expect(quotesRequestsTopic(10)).toBe('quotes:10:requests');
    expect(rfqMakerTopic(addr.toLowerCase())).toBe(`rfq_maker:${addr}`);
    expect(topics.rfqMaker(addr.toLowerCase()).key).toBe(parseTopic(`rfq_maker:${addr}`)!.key);
    expect(() => topics.quotesRequests(0)).toThrow();
  });
});
