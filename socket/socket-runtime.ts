import type { JoinLookups } from '../shared/events';
import type { EventHistory, RelayAnchors } from '../shared/platform/event-bus';
import type { Logger } from '../shared/platform/logging';
import type { ChannelIndex } from './channel-index';
import type { ReplayGate } from './replay-gate';
import type { SocketMetrics } from './socket-metrics';
import type { TopicHub } from './topic-hub';

export interface SocketSettings {
  maxChannels: number;
  maxBadFrames: number;
  maxBufferedBytes: number;
  joinBufferEvents: number;
  joinBurst: number;
  joinRatePerMinute: number;
  maxJoinRefusals: number;
  replayBudgetBytes: number;
  replayBudgetWindowMs: number;
}

/** What every connection of a replica shares. */
export interface SocketRuntime {
  settings: SocketSettings;
  logger: Logger;
  metrics: SocketMetrics;
  hub: TopicHub;
  /** What join rules look up (stream tokens, bearers, registrations); the topic table decides. */
  lookups: JoinLookups;
  history: EventHistory;
  /** Where relayed topics join their feed topics. */
  anchors: RelayAnchors;
  gate: ReplayGate;
  index: ChannelIndex;
}
