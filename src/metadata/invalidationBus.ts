import type { RedisClient } from '../inventory/redis.js';

// Tells every server process that cached metadata changed. The process that changed it
// invalidates its own cache directly (so its next request already sees the change) and
// publishes, so the others drop theirs within milliseconds. Pub/sub is fire-and-forget:
// a subscriber that reconnects may have missed messages, so it drops everything.

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

  constructor(
    private readonly publisher: RedisClient,
    private readonly subscriber: RedisClient,
  ) {}

  async start(): Promise<void> {
    this.subscriber.on('message', (channel: string, raw: string) => {
      if (channel !== CHANNEL) return;
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
    await this.subscriber.subscribe(CHANNEL);
    this.connectedOnce = true;
  }

  on(topic: string, listener: Listener, onReset: () => void): void {
    this.listeners.set(topic, [...(this.listeners.get(topic) ?? []), listener]);
    this.resetListeners.push(onReset);
  }

  async publish(message: Invalidation): Promise<void> {
    await this.publisher.publish(CHANNEL, JSON.stringify(message));
  }
}
