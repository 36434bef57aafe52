import type { RedisClient } from '../inventory/redis.js';

// Tells every server process that cached metadata changed. The process that changed it
// invalidates its own cache directly (so its next request already sees the change) and
// publishes, so the others drop theirs within milliseconds. Pub/sub is fire-and-forget:
// a subscriber that reconnects may have missed messages, so it drops everything.
//
// Channels are not keys: ioredis puts no REDIS_KEY_PREFIX before them, so the channel names
// the prefix itself. Deployments that share one Redis under prefixes of their own (and test
// servers) then drop only their own entries: before, one's change of its company 1 dropped every
// other's company 1, whose next request had to read MongoDB again (and failed while MongoDB was
// away). Servers of earlier versions listen on the channel without the prefix: a prefixed
// server publishes there too, so that during a rolling upgrade they still hear of changes.

const CHANNEL = 'seatsio:invalidate';

export interface Invalidation {
  topic: string;
  id: string | number;
}

type Listener = (message: Invalidation) => void;

export class InvalidationBus {
  private readonly listeners = new Map<string, Listener[]>();
  private readonly resetListeners: (() => void)[] = [];
  private connectedOnce = false;
  /** This deployment's channel: the key prefix, then CHANNEL. */
  private readonly channel: string;
  /** Where a change is published: this deployment's channel, and CHANNEL when that is another (earlier versions listen there). */
  private readonly publishedOn: string[];

  constructor(
    private readonly publisher: RedisClient,
    private readonly subscriber: RedisClient,
  ) {
    const prefix = publisher.options.keyPrefix ?? '';
    this.channel = `${prefix}${CHANNEL}`;
    this.publishedOn = [...new Set([this.channel, CHANNEL])];
  }

  async start(): Promise<void> {
    this.subscriber.on('message', (channel: string, raw: string) => {
      if (channel !== this.channel) return;
      let message: Invalidation;
      try {
        message = JSON.parse(raw) as Invalidation;
      } catch {
        return;
      }
      for (const listener of this.listeners.get(message.topic) ?? []) listener(message);
    });
    this.subscriber.on('ready', () => {
      if (this.connectedOnce) for (const reset of this.resetListeners) reset();
      this.connectedOnce = true;
    });
    await this.subscriber.subscribe(this.channel);
    this.connectedOnce = true;
  }

  on(topic: string, listener: Listener, onReset: () => void): void {
    this.listeners.set(topic, [...(this.listeners.get(topic) ?? []), listener]);
    this.resetListeners.push(onReset);
  }

  async publish(message: Invalidation): Promise<void> {
    const raw = JSON.stringify(message);
    await Promise.all(this.publishedOn.map((channel) => this.publisher.publish(channel, raw)));
  }
}
