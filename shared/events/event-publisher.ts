import { TopicEventPublisher, type TopicEventPublisherDeps } from '../platform/event-bus';
import { TOPIC_RULES, type TopicEvents } from './topics';

/**
 * The one way to send an event to socket clients: the platform's publisher bound to our topic
 * table, so an event name that does not belong on a topic, or a payload of the wrong shape,
 * fails to compile, and the event name is checked again at run time.
 */
export class EventPublisher extends TopicEventPublisher<TopicEvents> {
  constructor(deps: Omit<TopicEventPublisherDeps, 'rules'>) {
    super({ ...deps, rules: TOPIC_RULES });
  }
}
