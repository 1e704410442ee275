import { z } from 'zod';
import { comingSoon, holdsStreamToken, registeredForChain, thatMakerOnly, TOPIC_TABLE, type AnyTopicSpec } from '../../shared/events';
import type { Json } from './schema-docs';

/**
 * The AsyncAPI 3 document of the socket tier, generated when the app starts from the one topic
 * table (shared/events/topic-table.ts): a topic kind added there appears here with its name
 * parameters, join rule and event payloads, without a second list to keep. The prose mirrors
 * docs/SOCKETS.md, which stays the long form.
 */

export type AsyncApiDocument = {
  asyncapi: '3.0.0';
  info: { title: string; version: string; description: string };
  defaultContentType: string;
  servers: Record<string, Json>;
  channels: Record<string, Json & { address: string }>;
  operations: Record<string, Json & { action: 'send' | 'receive' }>;
  components: { schemas: Record<string, Json>; messages: Record<string, Json> };
};

/** How a join rule reads to a client: what the join payload carries and who is admitted. */
interface JoinRuleDoc {
  credentials: readonly ('token' | 'api_key')[];
  who: string;
}

/**
 * One entry per join rule of topic-join.ts. Keyed by the rule itself, so a topic whose rule is
 * missing here stops the document build (and the test that builds it) rather than going out
 * undocumented.
 */
const JOIN_RULES = new Map<unknown, JoinRuleDoc>([
  [
    registeredForChain,
    {
      credentials: ['token', 'api_key'],
      who: "A wallet registered for that chain with POST /api/pubsub/premium or /api/pubsub/freemium: the SIWE or delegate bearer's wallet, or the maker key's bot wallet.",
    },
  ],
  [
    thatMakerOnly,
    {
      credentials: ['token', 'api_key'],
      who: 'That wallet only: one of its maker API keys, or its own SIWE bearer when it has maker rights or a current pubsub registration. Never a delegate. The address may be written in any case.',
    },
  ],
  [
    holdsStreamToken,
    {
      credentials: [],
      who: 'Whoever holds the stream token in the topic name: valid, unexpired and minted for this kind of stream. The join payload needs no credential.',
    },
  ],
  [
    comingSoon,
    { credentials: [], who: 'Nobody yet: the topic is coming soon and every join is refused with "this topic is coming soon and cannot be joined yet".' },
  ],
]);

export function joinRuleDoc(spec: AnyTopicSpec): JoinRuleDoc {
  const doc = JOIN_RULES.get(spec.authorize);
  if (!doc) throw new Error(`topic ${spec.name.template}: its join rule has no entry in JOIN_RULES (api/http/asyncapi-document.ts)`);
  return doc;
}

const PARAM_DOCS: Record<'chain' | 'address' | 'token', { name: string; description: string }> = {
  chain: { name: 'chain_id', description: 'Decimal chain id, e.g. 1 or 8453.' },
  address: { name: 'address', description: 'The wallet, 0x and 40 hex digits (any case; events carry it checksummed).' },
  token: { name: 'stream_token', description: 'The stream token the REST call returned; it is the credential of the topic.' },
};

/** `quotes:<chain_id>:requests` as AsyncAPI writes a parameterised address: `quotes:{chain_id}:requests`. */
export function channelAddress(template: string): string {
  return template.replace(/<([a-z_]+)>/g, '{$1}');
}

const SEQ_SEMANTICS =
  'Every pushed payload is {"seq": n, ...payload}: seq starts at 1 and grows by one per topic across all replicas; a channel delivers events in seq order, never twice. ' +
  'The join reply always carries seq, and the channel then delivers exactly the events with a greater seq. ' +
  'Join with {"last_seq": n} after a reconnect: if history still reaches back to n+1 the reply is {"seq": n, "recovered": true} and events n+1..head are replayed before live ones; ' +
  'otherwise {"seq": head, "recovered": false} and only live events follow (resynchronise by REST). ' +
  'Without last_seq a shared topic starts live; a token-named topic replays from its first event.';

function jsonSchemaOf(schema: z.ZodType): Json {
  const { $schema: _s, ...rest } = z.toJSONSchema(schema, { target: 'draft-7', io: 'output', unrepresentable: 'any' }) as Json;
  return rest;
}

/** An event as clients receive it: the publisher's payload plus the socket tier's seq. */
function pushedPayload(schema: z.ZodType): Json {
  const payload = jsonSchemaOf(schema);
  const seq = { type: 'integer', minimum: 1, description: 'Position of the event in its topic (see "seq" in the channel description).' };
  if (payload.type !== 'object') return { allOf: [{ type: 'object', properties: { seq }, required: ['seq'] }, payload] };
  const required = Array.isArray(payload.required) ? (payload.required as string[]) : [];
  return { ...payload, properties: { seq, ...(payload.properties as Json | undefined) }, required: ['seq', ...required] };
}

function joinPayload(rule: JoinRuleDoc): Json {
  const properties: Json = {
    last_seq: { type: 'integer', minimum: 0, description: 'The last seq this client processed; asks for a replay of what followed.' },
  };
  if (rule.credentials.includes('token')) properties.token = { type: 'string', description: "A SIWE or delegate bearer (wins over the connection's token)." };
  if (rule.credentials.includes('api_key'))
    properties.api_key = { type: 'string', description: "A maker API key secret (wins over the connection's api_key)." };
  return { type: 'object', properties };
}

const ref = (to: string) => ({ $ref: to });

/** Frames and replies every channel shares: the Phoenix envelope and the server's channel-ending events. */
function sharedComponents(): AsyncApiDocument['components'] {
  const frameRef = { oneOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] };
  return {
    schemas: {
      PhoenixFrameV2: {
        description:
          'vsn 2.0.0 (phoenix.js default): a JSON array [join_ref, ref, topic, event, payload] in a text frame. The server never sends binary frames.',
        type: 'array',
        items: [frameRef, frameRef, { type: 'string' }, { type: 'string' }, {}],
        minItems: 5,
        maxItems: 5,
      },
      PhoenixFrameV1: {
        description: 'vsn 1.0.0 (also when vsn is absent): a JSON object; the server sends no join_ref.',
        type: 'object',
        properties: { topic: { type: 'string' }, event: { type: 'string' }, payload: {}, ref: frameRef, join_ref: frameRef },
        required: ['topic', 'event', 'payload', 'ref'],
      },
    },
    messages: {
      phx_reply: {
        name: 'phx_reply',
        title: 'Reply to a join, leave or heartbeat',
        summary: 'ok with the join position, or error with a reason.',
        payload: {
          oneOf: [
            {
              type: 'object',
              properties: {
                status: { const: 'ok' },
                response: { type: 'object', properties: { seq: { type: 'integer', minimum: 0 }, recovered: { type: 'boolean' } } },
              },
              required: ['status', 'response'],
            },
            {
              type: 'object',
              properties: { status: { const: 'error' }, response: { type: 'object', properties: { reason: { type: 'string' } }, required: ['reason'] } },
              required: ['status', 'response'],
            },
          ],
        },
      },
      phx_close: {
        name: 'phx_close',
        title: 'Channel ended for good',
        summary: 'After a leave, or when the credential expired or was revoked; the client drops the channel.',
        payload: { type: 'object', properties: { reason: { type: 'string' } } },
      },
      phx_error: {
        name: 'phx_error',
        title: 'Channel ended, rejoin',
        summary: 'Events were lost or too many arrived while catching up: phoenix.js rejoins (with last_seq).',
        payload: { type: 'object', properties: { reason: { type: 'string' } }, required: ['reason'] },
      },
      phx_leave: { name: 'phx_leave', title: 'Leave the channel', payload: { type: 'object' } },
      heartbeat: {
        name: 'heartbeat',
        title: 'Keep the connection alive',
        summary: 'On topic "phoenix"; phoenix.js sends one every 30 s.',
        payload: { type: 'object' },
      },
    },
  };
}

export function buildAsyncApiDocument(version: string): AsyncApiDocument {
  const components = sharedComponents();
  const channels: AsyncApiDocument['channels'] = {
    phoenix: {
      address: 'phoenix',
      title: 'Connection heartbeat',
      description: 'Not a joinable topic: heartbeats go here and are answered with an ok phx_reply.',
      messages: { heartbeat: ref('#/components/messages/heartbeat'), phx_reply: ref('#/components/messages/phx_reply') },
    },
  };
  const operations: AsyncApiDocument['operations'] = {
    heartbeat: {
      action: 'send',
      channel: ref('#/channels/phoenix'),
      summary: 'Heartbeat',
      messages: [ref('#/channels/phoenix/messages/heartbeat')],
      reply: { channel: ref('#/channels/phoenix'), messages: [ref('#/channels/phoenix/messages/phx_reply')] },
    },
  };

  for (const [kind, spec] of Object.entries(TOPIC_TABLE) as [string, AnyTopicSpec][]) {
    const rule = joinRuleDoc(spec);
    const param = PARAM_DOCS[spec.name.shape];
    const planned = spec.status === 'planned';
    const events = Object.entries(spec.events);
    const messages: Json = {
      phx_join: {
        name: 'phx_join',
        title: `Join ${spec.name.template}`,
        payload: joinPayload(rule),
      },
      phx_reply: ref('#/components/messages/phx_reply'),
      phx_leave: ref('#/components/messages/phx_leave'),
      phx_close: ref('#/components/messages/phx_close'),
      phx_error: ref('#/components/messages/phx_error'),
    };
    for (const [event, schema] of events) messages[event] = { name: event, title: event, payload: pushedPayload(schema) };

    const start = spec.replayFromStart ? 'A join without last_seq replays the topic from its first event.' : 'A join without last_seq starts live.';
    channels[kind] = {
      address: channelAddress(spec.name.template),
      title: planned ? `${spec.name.template} (coming soon)` : spec.name.template,
      description: [planned ? 'Coming soon: recognised, every join is refused.' : '', `Who may join: ${rule.who}`, start, SEQ_SEMANTICS]
        .filter(Boolean)
        .join('\n\n'),
      parameters: { [param.name]: { description: param.description } },
      messages,
      tags: [{ name: planned ? 'coming-soon' : 'live' }, ...(spec.streamKind ? [{ name: `stream-token:${spec.streamKind}` }] : [])],
      'x-status': spec.status,
      'x-join-params': [...rule.credentials, 'last_seq'],
    };
    operations[`join_${kind}`] = {
      action: 'send',
      channel: ref(`#/channels/${kind}`),
      summary: `Join ${spec.name.template}`,
      messages: [ref(`#/channels/${kind}/messages/phx_join`), ref(`#/channels/${kind}/messages/phx_leave`)],
      reply: { channel: ref(`#/channels/${kind}`), messages: [ref(`#/channels/${kind}/messages/phx_reply`)] },
    };
    operations[`receive_${kind}`] = {
      action: 'receive',
      channel: ref(`#/channels/${kind}`),
      summary: planned ? 'Nothing yet: the topic is coming soon' : `Events of ${spec.name.template}`,
      messages: [
        ...events.map(([event]) => ref(`#/channels/${kind}/messages/${event}`)),
        ref(`#/channels/${kind}/messages/phx_close`),
        ref(`#/channels/${kind}/messages/phx_error`),
      ],
    };
  }

  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Options RFQ socket',
      version,
      description:
        'Phoenix channels over WebSocket, as the official phoenix.js client (1.8.x) speaks them; see docs/SOCKETS.md. ' +
        'Connect to /socket/websocket with query vsn=2.0.0 (array frames, PhoenixFrameV2) or vsn=1.0.0 (object frames, PhoenixFrameV1; the default when vsn is absent); any other vsn is refused 403. ' +
        "Optional query token (SIWE or delegate bearer) and api_key (maker key) are default credentials for joins; a join payload's own token/api_key wins. " +
        'Every channel below is a topic kind; every message travels inside the envelope with the topic and event named. ' +
        SEQ_SEMANTICS,
    },
    defaultContentType: 'application/json',
    servers: {
      api: {
        host: 'api.example.com',
        protocol: 'wss',
        pathname: '/socket/websocket',
        description: 'The API host (ROLES=api,socket) or a socket replica (ROLES=socket).',
        bindings: {
          ws: {
            query: {
              type: 'object',
              properties: {
                vsn: { type: 'string', enum: ['2.0.0', '1.0.0'], default: '1.0.0' },
                token: { type: 'string', description: 'Default join credential: a SIWE or delegate bearer.' },
                api_key: { type: 'string', description: 'Default join credential: a maker API key secret.' },
              },
            },
          },
        },
      },
    },
    channels,
    operations,
    components,
  };
}
