import { execFileSync } from 'node:child_process';
import { generatedDrawing, SEATS_100K } from '../drawings.js';
import type { Admin } from '../lib/admin.js';

// The 100,000-seat chart: indexing cost measured in its own process (bench/objectIndex.ts,
// needs --expose-gc for heap figures), then its upload and a first thumbnail over HTTP,
// with how long the server stalls other requests while it takes the chart in.

export async function chartUpload(admin: Admin, indexInOwnProcess: boolean): Promise<{ figures: Record<string, unknown>; chartKey: string }> {
  const index = indexInOwnProcess
    ? (JSON.parse(execFileSync(process.execPath, ['--expose-gc', 'dist/bench/objectIndex.js']).toString()) as Record<string, unknown>)
    : {};
  const drawing = generatedDrawing(SEATS_100K);
  let uploading = true;
  let slowestHealthMs = 0;
  const probe = (async () => {
    while (uploading) {
      const asked = performance.now();
      await (await fetch(`${admin.base}/health`)).arrayBuffer();
      slowestHealthMs = Math.max(slowestHealthMs, performance.now() - asked);
    }
  })();
  let started = performance.now();
  const chartKey = await admin.uploadChart(drawing).finally(() => (uploading = false));
  const uploadMs = Math.round(performance.now() - started);
  await probe;
  started = performance.now();
  const thumbnail = await fetch(`${admin.base}/charts/${chartKey}/version/published/thumbnail`, { headers: admin.headers });
  await thumbnail.arrayBuffer();
  const firstThumbnailMs = Math.round(performance.now() - started);
  return {
    figures: { ...index, httpUploadMs: uploadMs, slowestHealthDuringUploadMs: Math.round(slowestHealthMs), httpFirstThumbnailMs: firstThumbnailMs },
    chartKey,
  };
}
