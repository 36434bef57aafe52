import type { ChartVersion } from '../domain/chart.js';
import type { Drawing } from '../domain/drawing.js';
import { ApiError } from '../domain/errors.js';
import { bestAvailablePreparation } from '../domain/bestAvailable.js';
import { buildObjectIndex, type ObjectIndex } from '../domain/objectIndex.js';
import type { Charts } from '../metadata/charts.js';
import { Lru, memoize } from '../util/lru.js';

// The object index of each chart version in use, built from its drawing once per process.
// Drawing ids name one immutable version, so an index cached by drawing id never goes
// stale; the least recently used are dropped first (a 100,000-seat index is tens of MB).

const MAX_INDEXES = 16;

export const concurrentChartChange = (key: string) =>
  new ApiError(409, 'CONCURRENT_MODIFICATION', `Chart ${key} is being changed by other requests; try again`);

export class ObjectIndexes {
  private readonly indexes = new Lru<string, Promise<ObjectIndex>>(MAX_INDEXES);

  /** `bestAvailable`: whether best available's tables are prepared as each index is built (`prepared`). */
  constructor(
    private readonly charts: Charts,
    private readonly bestAvailable = true,
  ) {}

  /** The index of a version of chart `chartKey`; 409 if a concurrent change replaced the version. */
  of(chartKey: string, version: ChartVersion): Promise<ObjectIndex> {
    return memoize(this.indexes, version.drawingId, async () => {
      const json = await this.charts.drawingJson(version.drawingId);
      if (json === null) throw concurrentChartChange(chartKey);
      const index = buildObjectIndex(JSON.parse(json) as Drawing);
      return this.bestAvailable ? prepared(index) : index;
    });
  }

  /** An index built while storing its drawing: the first event on a new chart need not build it again. */
  remember(drawingId: string, index: ObjectIndex): void {
    this.indexes.set(drawingId, Promise.resolve(this.bestAvailable ? prepared(index) : index));
  }
}

/**
 * Best available's per-chart tables (src/domain/bestAvailable.ts) are computed right after
 * the index, one step per turn of the event loop: the request that needed the index does not
 * wait for them, and requests in between are not held up for the whole 0.3 s a 100,000-seat
 * chart takes.
 */
function prepared(index: ObjectIndex): ObjectIndex {
  const steps = bestAvailablePreparation(index);
  const next = () => {
    const step = steps.shift();
    if (!step) return;
    step();
    setImmediate(next);
  };
  setImmediate(next);
  return index;
}
