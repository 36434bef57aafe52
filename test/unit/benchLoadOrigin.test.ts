import { describe, expect, it } from 'vitest';
import { checkOrigin, sendOnlyTo } from '../../bench/lib/loadOrigin.js';
import { measure } from '../../bench/lib/measure.js';
import { newRunId, targetOrigin } from '../../bench/lib/target.js';

// With --target the bench sends requests to the target's origin alone (bench/lib/loadOrigin.ts):
// measure() refuses any other address before autocannon starts, so a scenario that built one of
// its own (the ceiling's, the reference's) fails instead of loading another server.

describe('the target origin', () => {
  it('is the URL given, reduced to scheme, host and port; anything else is refused', () => {
    expect(targetOrigin('http://Example.COM:3000/', [])).toBe('http://example.com:3000');
    expect(targetOrigin('https://seats.example', [])).toBe('https://seats.example');
    expect(() => targetOrigin('http://host:3000/api', [])).toThrow(/origin alone/);
    expect(() => targetOrigin('http://user:pw@host:3000', [])).toThrow(/origin alone/);
    expect(() => targetOrigin('host:3000', [])).toThrow(/only http:\/\/ and https:\/\//);
    expect(() => targetOrigin(undefined, [])).toThrow(/--target takes the server's URL/);
    expect(() => targetOrigin('http://host:3000', ['--cluster', '--jobs-apart'])).toThrow('--cluster, --jobs-apart: these options set up a server the bench starts');
  });

  it('names the run by date and time, and a few random letters', () => {
    expect(newRunId(new Date('2026-11-26T09:05:00Z'))).toMatch(/^bench-20261126t0905-[0-9a-f]{6}$/);
    expect(newRunId()).not.toBe(newRunId());
  });

  it('is the only origin requests may go to once set: measure() refuses any other before it sends', async () => {
    expect(() => checkOrigin('http://127.0.0.1:1/x')).not.toThrow();
    sendOnlyTo('http://127.0.0.1:3000');
    expect(() => checkOrigin('http://127.0.0.1:3000/events/a/actions/book')).not.toThrow();
    expect(() => checkOrigin('http://127.0.0.1:3001/')).toThrow('refusing to send a request to http://127.0.0.1:3001: the bench sends requests to the target http://127.0.0.1:3000 only');
    expect(() => checkOrigin('')).toThrow(/not a URL/);
    await expect(measure({ connections: 1, durationSeconds: 1 }, { url: 'http://127.0.0.1:3002' })).rejects.toThrow(/refusing to send a request to http:\/\/127\.0\.0\.1:3002/);
  });
});
