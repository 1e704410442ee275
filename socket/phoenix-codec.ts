import { z } from 'zod';

/**
 * The Phoenix channels wire format, both serializers the official client speaks:
 * - vsn 2.0.0: text frames `[join_ref, ref, topic, event, payload]`; binary frames with a
 *   header (kind 0 = push from the client, 1 = reply, 2 = broadcast) and a raw payload;
 * - vsn 1.0.0: text frames `{topic, event, payload, ref}` (no join_ref on the way out).
 * Decoding never throws: a bad frame is a value the connection can count and drop.
 */

export type Vsn = 1 | 2;
/** Refs are opaque: phoenix.js sends strings, other clients numbers; echoed back as received. */
export type Ref = string | number | null;

export interface InboundMessage {
  joinRef: Ref;
  ref: Ref;
  topic: string;
  event: string;
  payload: unknown;
  /** Came in a binary frame; the payload is then raw bytes. */
  binary: boolean;
}

export type Decoded = { ok: true; msg: InboundMessage } | { ok: false; reason: string };

/** Phoenix answers the handshake 403 for a vsn no serializer accepts; a missing vsn means 1.0.0. */
export function negotiateVsn(vsn: string | null): Vsn | null {
  const m = /^(\d{1,4})\.(\d{1,4})\.(\d{1,4})$/.exec(vsn ?? '1.0.0');
  if (!m || m[2] !== '0') return null;
  if (m[1] === '2') return 2;
  if (m[1] === '1') return 1;
  return null;
}

const ref = z.union([z.string().max(64), z.number().int().safe()]).nullable();
const topic = z.string().min(1).max(255);
const event = z.string().min(1).max(64);
const v2Frame = z.tuple([ref, ref, topic, event, z.unknown()], z.unknown());
const v1Frame = z.object({ topic, event, payload: z.unknown(), ref, join_ref: ref.optional() });

export function decodeText(vsn: Vsn, raw: string): Decoded {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { ok: false, reason: 'invalid_json' };
  }
  if (vsn === 2) {
    const r = v2Frame.safeParse(json);
    if (!r.success) return { ok: false, reason: 'invalid_frame' };
    const [joinRef, msgRef, t, e, payload] = r.data;
    return { ok: true, msg: { joinRef, ref: msgRef, topic: t, event: e, payload, binary: false } };
  }
  const r = v1Frame.safeParse(json);
  if (!r.success) return { ok: false, reason: 'invalid_frame' };
  const m = r.data;
  return { ok: true, msg: { joinRef: m.join_ref ?? null, ref: m.ref, topic: m.topic, event: m.event, payload: m.payload, binary: false } };
}

const PUSH = 0;
const HEADER = 5;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A vsn 2 binary push: kind, four lengths, join_ref, ref, topic, event, then the payload bytes. */
export function decodeBinary(buf: Buffer): Decoded {
  if (buf.length < HEADER || buf[0] !== PUSH) return { ok: false, reason: 'invalid_binary_frame' };
  const lens = [buf[1], buf[2], buf[3], buf[4]];
  const fields: string[] = [];
  let at = HEADER;
  for (const len of lens) {
    if (at + len > buf.length) return { ok: false, reason: 'invalid_binary_frame' };
    try {
      fields.push(utf8.decode(buf.subarray(at, at + len)));
    } catch {
      return { ok: false, reason: 'invalid_binary_frame' };
    }
    at += len;
  }
  const [joinRef, msgRef, t, e] = fields;
  if (t.length === 0 || e.length === 0) return { ok: false, reason: 'invalid_binary_frame' };
  return {
    ok: true,
    msg: { joinRef: joinRef === '' ? null : joinRef, ref: msgRef === '' ? null : msgRef, topic: t, event: e, payload: buf.subarray(at), binary: true },
  };
}

const j = JSON.stringify;

/** `phx_reply` to a client message. */
export function encodeReply(vsn: Vsn, joinRef: Ref, msgRef: Ref, t: string, status: 'ok' | 'error', response: object): string {
  if (vsn === 2) return j([joinRef, msgRef, t, 'phx_reply', { status, response }]);
  return j({ topic: t, event: 'phx_reply', payload: { status, response }, ref: msgRef });
}

/** Any other server message; `payloadJson` is already JSON text (events arrive from Redis that way). */
export function encodeMessage(vsn: Vsn, joinRef: Ref, msgRef: Ref, t: string, e: string, payloadJson: string): string {
  if (vsn === 2) return `[${j(joinRef)},${j(msgRef)},${j(t)},${j(e)},${payloadJson}]`;
  return `{"topic":${j(t)},"event":${j(e)},"payload":${payloadJson},"ref":${j(msgRef)}}`;
}
