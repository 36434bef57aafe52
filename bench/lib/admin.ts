import type { Drawing } from '../../src/domain/drawing.js';
import { checkOrigin } from './loadOrigin.js';
import { basicAuth } from './measure.js';

// The admin calls the benchmarks make to seed the server: charts, events, hold tokens.
// Given a run id (`--target`), every chart's name and every event and season key starts
// with it, so the run's data can be found and removed afterwards (bench/lib/target.ts).

export interface BenchEvent {
  id: number;
  key: string;
  /** The hash tag of its inventory keys: its own id, or its top-level season's (src/metadata/events.ts). */
  tag?: string;
}

/** A season and its events, all under the season's hash tag. */
export interface BenchSeason {
  season: BenchEvent;
  events: BenchEvent[];
}

/** How many times a GET answered 503 is asked in all. */
const GET_ATTEMPTS = 5;

/** A 503's Retry-After in ms (seconds in the header), 1 s when absent, at most 5 s. */
function retryAfterMs(header: string | null): number {
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 5) * 1_000 : 1_000;
}

export class Admin {
  readonly headers: Record<string, string>;
  private keys = 0;

  constructor(
    readonly base: string,
    adminKey: string,
    readonly runId?: string,
  ) {
    this.headers = { authorization: basicAuth(adminKey), 'content-type': 'application/json' };
  }

  /** The next key of the run's events and seasons, or none (the server makes one). */
  private nextKey(): string | undefined {
    return this.runId === undefined ? undefined : `${this.runId}-${++this.keys}`;
  }

  async call<T>(method: string, path: string, body?: unknown, expected = 200): Promise<T> {
    checkOrigin(`${this.base}${path}`);
    for (let attempt = 1; ; attempt++) {
      const response = await fetch(`${this.base}${path}`, { method, headers: this.headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await response.text();
      if (response.status === expected) return (text ? JSON.parse(text) : undefined) as T;
      // A read answered 503 (the store slow under the run's own load, a report thread
      // restarting) is asked again after its Retry-After: a GET changes nothing, and a
      // correctness check should not fail a run over a moment of overload. Writes are not
      // repeated here: their answer is what the scenario measures.
      if (method === 'GET' && response.status === 503 && attempt < GET_ATTEMPTS) {
        await new Promise((resolve) => setTimeout(resolve, retryAfterMs(response.headers.get('retry-after'))));
        continue;
      }
      throw new Error(`${method} ${path} answered ${response.status}${attempt > 1 ? ` (attempt ${attempt})` : ''}: ${text.slice(0, 500)}`);
    }
  }

  /** Uploads a drawing as a new chart; returns its key. */
  async uploadChart(drawing: Drawing): Promise<string> {
    const named = this.runId === undefined ? drawing : { ...drawing, name: `${this.runId} ${drawing.name}` };
    return (await this.call<{ key: string }>('POST', '/charts', named)).key;
  }

  async createEvent(chartKey: string): Promise<BenchEvent> {
    const created = await this.call<{ id: number; key: string }>('POST', '/events', { chartKey, eventKey: this.nextKey() });
    return { id: created.id, key: created.key };
  }

  async createEvents(chartKey: string, count: number): Promise<BenchEvent[]> {
    const events: BenchEvent[] = [];
    for (let i = 0; i < count; i++) events.push(await this.createEvent(chartKey));
    return events;
  }

  /** A season on the chart with `events` events (POST /seasons). */
  async createSeason(chartKey: string, events: number): Promise<BenchSeason> {
    const key = this.nextKey();
    const body = key === undefined ? { chartKey, numberOfEvents: events } : { chartKey, key, eventKeys: Array.from({ length: events }, (_, i) => `${key}-${i + 1}`) };
    const created = await this.call<{ id: number; key: string; events: { id: number; key: string }[] }>('POST', '/seasons', body);
    const tag = String(created.id);
    return { season: { id: created.id, key: created.key, tag }, events: created.events.map((e) => ({ id: e.id, key: e.key, tag })) };
  }

  /** Books objects in requests of at most 1,000 (the cap per request, docs/seatsio-behaviour.md "Limits"). */
  async book(eventKey: string, labels: string[]): Promise<void> {
    for (let i = 0; i < labels.length; i += 1000) {
      await this.call('POST', `/events/${encodeURIComponent(eventKey)}/actions/book`, { objects: labels.slice(i, i + 1000) }, 204);
    }
  }
}
