import { setTimeout as sleep } from 'node:timers/promises';
import { generatedDrawing } from './drawings.js';
import { Admin } from './lib/admin.js';
import { printedKey, startDevServer } from './lib/devServer.js';

// `npm run bench:history [sections]`: what a page of a long status-change history costs the
// requests beside it (docs/history.md, "Stored in batches"). The server as `npm run dev`
// starts it; an event of a chart of `sections` sections of 40 rows of 25 seats (50 unless
// said: 50,000 seats) booked and released whole in calls of 1,000, so its history holds two
// changes per seat; then PAGES pages of 10, newest first, one after another, while one client
// sends /health after /health: the longest /health wait is how long the event loop was held
// (every booking of the process waits as long). One JSON object on stdout.

const PAGES = 3;
const sections = Number(process.argv[2] ?? 50);
const server = await startDevServer('history');
try {
  const admin = new Admin(server.url, printedKey(server, 'Company admin key'));
  // The workspace's calls go the admin's way, with the workspace's key.
  const workspace = new Admin(server.url, printedKey(server, 'Default workspace secret key'));
  const chartKey = await admin.uploadChart(generatedDrawing({ sections, rowsPerSection: 40, seatsPerRow: 25 }));
  const event = await admin.createEvent(chartKey);
  const report = await workspace.call<Record<string, { label: string }[]>>('GET', `/reports/events/${event.key}/byStatus`);
  const labels = Object.values(report).flatMap((objects) => objects.map((o) => o.label));
  for (const action of ['book', 'release']) {
    for (let i = 0; i < labels.length; i += 1000) await workspace.call('POST', `/events/${event.key}/actions/${action}`, { objects: labels.slice(i, i + 1000) }, 204);
  }
  const changes = labels.length * 2;
  const historyPath = `/events/${event.key}/status-changes?limit=10`;
  // Until the drain has stored every change (the newest page starts at the last one).
  const newest = async () => (await workspace.call<{ items: { id: number }[] }>('GET', historyPath)).items[0]?.id;
  for (let waited = 0; (await newest()) !== changes; waited += 200) {
    if (waited > 120_000) throw new Error('the history was not stored within 2 minutes');
    await sleep(200);
  }
  let stop = false;
  let longestHealthMs = 0;
  const beside = (async () => {
    while (!stop) {
      const began = performance.now();
      await workspace.call('GET', '/health');
      longestHealthMs = Math.max(longestHealthMs, performance.now() - began);
    }
  })();
  const pageMs: number[] = [];
  for (let i = 0; i < PAGES; i++) {
    const began = performance.now();
    await workspace.call('GET', historyPath);
    pageMs.push(Math.round(performance.now() - began));
  }
  stop = true;
  await beside;
  console.log(JSON.stringify({ changes, pageMs, longestHealthMs: Math.round(longestHealthMs) }, null, 2));
} finally {
  await server.stop();
}
