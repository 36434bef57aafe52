import { beforeAll, beforeEach } from 'vitest';
import { uploadDrawing } from './charts.js';
import { createEvent } from './events.js';
import { useServerWithCompany, type ServerWithCompany } from './harness.js';

export interface EventPerTest extends ServerWithCompany {
  /** The chart of the file's drawing, uploaded once for the file. */
  chartKey: string;
}

/**
 * The setup the status, hold and report suites share: a server with a test company
 * (useServerWithCompany, whose `overrides` or `'shared'` it takes), the file's drawing
 * uploaded once as a chart, and a fresh event on that chart before each test, handed to
 * `onEvent` (the file keeps it in a variable of its own, so its tests read `event` as before).
 */
export function useEventPerTest(drawing: unknown, onEvent: (eventKey: string) => void, overrides: Record<string, string> | 'shared' = {}): EventPerTest {
  const ctx = useServerWithCompany(overrides) as EventPerTest;
  beforeAll(async () => {
    ctx.chartKey = (await uploadDrawing(ctx.api, drawing)).key;
  });
  beforeEach(async () => onEvent(await createEvent(ctx.api, ctx.chartKey)));
  return ctx;
}
