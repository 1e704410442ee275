import * as phoenix from 'phoenix';
import { decodeBinary, decodeText, encodeMessage, encodeReply, negotiateVsn } from '../../../socket/phoenix-codec';

// @types/phoenix (1.6) does not declare the Serializer the 1.8 client exports
const Serializer = (phoenix as unknown as { Serializer: unknown }).Serializer;

/** What the official client's serializer makes of a frame we send. */
function clientDecodes(frame: string): unknown {
  let out: unknown;
  (Serializer as unknown as { decode: (raw: string, cb: (m: unknown) => void) => void }).decode(frame, (m) => (out = m));
  return out;
}

/** What the official client's serializer sends for a binary push. */
function clientBinaryPush(msg: { join_ref: string; ref: string; topic: string; event: string; payload: ArrayBuffer }): Buffer {
  let out: ArrayBuffer | undefined;
  (Serializer as unknown as { encode: (m: unknown, cb: (r: ArrayBuffer) => void) => void }).encode(msg, (r) => (out = r));
  return Buffer.from(out!);
}

describe('phoenix codec', () => {
  it('negotiates vsn like Phoenix: 2.0.x, 1.0.x, missing = 1.0.0, anything else refused', () => {
    expect(negotiateVsn('2.0.0')).toBe(2);
    expect(negotiateVsn('2.0.7')).toBe(2);
    expect(negotiateVsn('1.0.0')).toBe(1);
    expect(negotiateVsn(null)).toBe(1);
    for (const bad of ['2.1.0', '3.0.0', '0.1.0', '2', 'v2.0.0', '2.0.0-rc', '']) expect(negotiateVsn(bad)).toBeNull();
  });

  it('decodes v2 arrays and v1 objects', () => {
    expect(decodeText(2, '["1","2","t:1","phx_join",{"a":1}]')).toEqual({
      ok: true,
      msg: { joinRef: '1', ref: '2', topic: 't:1', event: 'phx_join', payload: { a: 1 }, binary: false },
    });
    expect(decodeText(2, '[null,3,"phoenix","heartbeat",{}]')).toMatchObject({ ok: true, msg: { joinRef: null, ref: 3 } });
    expect(decodeText(1, '{"topic":"t","event":"e","payload":{},"ref":"9"}')).toEqual({
      ok: true,
      msg: { joinRef: null, ref: '9', topic: 't', event: 'e', payload: {}, binary: false },
    });
  });

  it('reports malformed text frames instead of throwing', () => {
    const bad = [
      '',
      '{',
      'null',
      '42',
      '[]',
      '["1","2","t"]',
      '[1.5,"2","t","e",{}]',
      '["1","2","","e",{}]',
      '["1","2",5,"e",{}]',
      `["1","2","${'x'.repeat(256)}","e",{}]`,
      '["1",{"a":1},"t","e",{}]',
    ];
    for (const raw of bad) expect(decodeText(2, raw).ok).toBe(false);
    expect(decodeText(1, '["1","2","t","e",{}]')).toEqual({ ok: false, reason: 'invalid_frame' });
    expect(decodeText(1, '{"topic":"t","event":"e"}')).toEqual({ ok: false, reason: 'invalid_frame' });
    expect(decodeText(2, '{')).toEqual({ ok: false, reason: 'invalid_json' });
  });

  it('decodes the binary push the official client sends, and refuses malformed binary', () => {
    const payload = new Uint8Array([9, 8, 7]).buffer;
    const frame = clientBinaryPush({ join_ref: '4', ref: '5', topic: 'rfq_stream:abc', event: 'upload', payload });
    const d = decodeBinary(frame);
    expect(d).toMatchObject({ ok: true, msg: { joinRef: '4', ref: '5', topic: 'rfq_stream:abc', event: 'upload', binary: true } });
    expect(d.ok && Buffer.from(d.msg.payload as Buffer)).toEqual(Buffer.from([9, 8, 7]));

    expect(decodeBinary(Buffer.from([])).ok).toBe(false);
    expect(decodeBinary(Buffer.from([1, 0, 0, 1, 1, 65, 66])).ok).toBe(false); // kind 1 is server-to-client
    expect(decodeBinary(Buffer.from([0, 9, 0, 1, 1, 65])).ok).toBe(false); // lengths beyond the frame
    expect(decodeBinary(Buffer.from([0, 0, 0, 0, 1, 65])).ok).toBe(false); // empty topic
    expect(decodeBinary(Buffer.from([0, 0, 0, 1, 1, 0xff, 65])).ok).toBe(false); // invalid UTF-8
  });

  it('encodes replies and pushes that the official client decodes as Phoenix sends them', () => {
    expect(clientDecodes(encodeReply(2, '1', '2', 'rfq_stream:x', 'ok', { seq: 4, recovered: true }))).toEqual({
      join_ref: '1',
      ref: '2',
      topic: 'rfq_stream:x',
      event: 'phx_reply',
      payload: { status: 'ok', response: { seq: 4, recovered: true } },
    });
    expect(clientDecodes(encodeMessage(2, '1', null, 'rfq_stream:x', 'rfq_offer', '{"seq":5,"a":"b"}'))).toEqual({
      join_ref: '1',
      ref: null,
      topic: 'rfq_stream:x',
      event: 'rfq_offer',
      payload: { seq: 5, a: 'b' },
    });
    expect(JSON.parse(encodeReply(1, '1', '2', 't', 'error', { reason: 'no' }))).toEqual({
      topic: 't',
      event: 'phx_reply',
      payload: { status: 'error', response: { reason: 'no' } },
      ref: '2',
    });
    expect(JSON.parse(encodeMessage(1, '1', '1', 't"q', 'phx_close', '{}'))).toEqual({ topic: 't"q', event: 'phx_close', payload: {}, ref: '1' });
  });
});
