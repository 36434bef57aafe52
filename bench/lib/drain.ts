// The history drain as the bench sees it (docs/history.md): the server's /metrics gauges
// read before and after a scenario give the changes stored per second while it ran and
// how far behind the drain was when it ended.

import { serverGauges } from './serverGauges.js';
import { waitUntil } from './waitUntil.js';

export interface DrainGauges {
  stored: number;
  lagSeconds: number;
  pendingStreams: number;
}

export async function drainGauges(serverUrl: string): Promise<DrainGauges> {
  const gauge = await serverGauges(serverUrl);
  return { stored: gauge('history_changes_stored_total'), lagSeconds: gauge('history_drain_lag_seconds'), pendingStreams: gauge('history_pending_streams') };
}

/** The server's count of events' streams waiting for the drain, as a function to ask again. */
export const pendingStreamsOf = (serverUrl: string) => async (): Promise<number> => (await drainGauges(serverUrl)).pendingStreams;

/**
 * Waits until no event's stream waits for the drain, asking every `pollMs`, at most `maxMs`;
 * whether the drain caught up. A server without the gauge reads 0 (serverGauges): caught up.
 */
export function drainCaughtUp(pendingStreams: () => Promise<number>, maxMs: number, pollMs: number): Promise<boolean> {
  return waitUntil(async () => !((await pendingStreams()) > 0), maxMs, pollMs);
}

/** Figures of one scenario: stored per second over `ms`, and the lag and waiting streams at its end. */
export function drainFigures(before: DrainGauges, after: DrainGauges, ms: number): Record<string, number> {
  return {
    historyStoredPerSecond: Math.round(((after.stored - before.stored) / ms) * 1000),
    historyLagSecondsAtEnd: Math.round(after.lagSeconds * 100) / 100,
    historyPendingStreamsAtEnd: after.pendingStreams,
  };
}
