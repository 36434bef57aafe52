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
    const response = await fetch(`${this.base}${path}`, { method, headers: this.headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    if (response.status !== expected) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
    return (text ? JSON.parse(text) : undefined) as T;
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
