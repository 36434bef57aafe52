import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from './config.js';
import { projectDir } from './util/projectDir.js';

// `npm run dev`'s sample: the chart of samples/chart.json (rows A to D of 8 seats, a GA
// area of 100 places) and an event on it, created through the API as any client would,
// so a newcomer can book a seat with the first command they type. DEV_SAMPLE=off leaves
// them out (the bench does: it brings its own charts).

export const SAMPLE_CHART_KEY = 'sample-chart';
export const SAMPLE_EVENT_KEY = 'sample-event';

/** The bundled sample drawing, as a client would upload it. */
export function sampleChartDrawing(): string {
  return readFileSync(join(projectDir(), 'samples', 'chart.json'), 'utf8');
}

/** DEV_SAMPLE: unset or `on` creates the sample, `off` does not; anything else is a mistake worth stopping for. */
export function sampleWanted(value: string | undefined): boolean {
  if (value === undefined || value === '' || value === 'on') return true;
  if (value === 'off') return false;
  throw new ConfigError('DEV_SAMPLE', `expected on or off, got "${value}"`);
}

/**
 * Creates the sample chart and its event in the key's workspace unless they are there
 * already (a MONGODB_URL that outlives the dev server keeps them; the in-memory one does
 * not). Returns whether anything was created.
 */
export async function ensureSample(baseUrl: string, secretKey: string): Promise<boolean> {
  const auth = { authorization: `Basic ${Buffer.from(`${secretKey}:`).toString('base64')}` };
  const send = async (method: string, path: string, body?: string): Promise<Response> =>
    fetch(`${baseUrl}${path}`, { method, headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body });
  const expect = async (response: Response, statuses: number[], what: string): Promise<number> => {
    if (!statuses.includes(response.status)) throw new Error(`creating the sample ${what}: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
    return response.status;
  };

  let created = false;
  if ((await expect(await send('GET', `/charts/${SAMPLE_CHART_KEY}`), [200, 404], 'chart')) === 404) {
    await expect(await send('POST', `/system/public/charts/${SAMPLE_CHART_KEY}`, sampleChartDrawing()), [201], 'chart');
    created = true;
  }
  if ((await expect(await send('GET', `/events/${SAMPLE_EVENT_KEY}`), [200, 404], 'event')) === 404) {
    await expect(await send('POST', '/events', JSON.stringify({ chartKey: SAMPLE_CHART_KEY, eventKey: SAMPLE_EVENT_KEY, name: 'Sample event' })), [200], 'event');
    created = true;
  }
  return created;
}

/** The command that books seat A-1 of the sample event, as the dev server prints it. */
export function bookingCommand(baseUrl: string, secretKey: string): string {
  return `curl -u ${secretKey}: ${baseUrl}/events/${SAMPLE_EVENT_KEY}/actions/book -H 'Content-Type: application/json' -d '{"objects":["A-1"]}'`;
}
