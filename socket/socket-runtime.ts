import type { EventHistory } from '../shared/events';
import type { Logger } from '../shared/platform/logging';
import type { ChannelAuthorizer } from './channel-auth';
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
  auth: ChannelAuthorizer;
  history: EventHistory;
  gate: ReplayGate;
  index: ChannelIndex;
}
