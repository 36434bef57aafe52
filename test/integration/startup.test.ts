import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { openFileLimit } from '../../src/util/openFileLimit.js';
import { runServerToExit, spawnServer, testEnv } from '../support/harness.js';

// Start-up of the built server (`node dist/src/main.js`): a bad environment stops it with
// exit code 1 and one line naming the variable; unreachable dependencies stop it within
// the start-up timeout; the pure-Node uWS fallback runs only when explicitly allowed.

function lines(output: string): string[] {
  return output.split('\n').filter((line) => line.trim() !== '');
}

describe('configuration errors', () => {
  const cases: { name: string; env: () => Record<string, string>; variable: string; detail: RegExp }[] = [
    { name: 'PORT=abc', env: () => testEnv({ PORT: 'abc' }), variable: 'PORT', detail: /whole number.*"abc"/ },
    { name: 'PORT=70000', env: () => testEnv({ PORT: '70000' }), variable: 'PORT', detail: /between 0 and 65535/ },
    { name: 'LOG_LEVEL=loud', env: () => testEnv({ LOG_LEVEL: 'loud' }), variable: 'LOG_LEVEL', detail: /"loud"/ },
    { name: 'REDIS_URL=http://x', env: () => testEnv({ REDIS_URL: 'http://x' }), variable: 'REDIS_URL', detail: /redis:\/\/.*"http:\/\/x"/ },
    {
      name: 'MONGODB_URL unset',
      env: () => {
        const env = testEnv();
        delete env.MONGODB_URL;
        return env;
      },
      variable: 'MONGODB_URL',
      detail: /is required/,
    },
    { name: 'MAX_BODY_BYTES=5', env: () => testEnv({ MAX_BODY_BYTES: '5' }), variable: 'MAX_BODY_BYTES', detail: /between 1024 and/ },
  ];

  it.concurrent.each(cases)('$name: exits 1 with one line naming the variable', async ({ env, variable, detail }) => {
    const { code, output } = await runServerToExit(env());
    expect(code).toBe(1);
    const printed = lines(output);
    expect(printed, output).toHaveLength(1);
    expect(printed[0]).toMatch(new RegExp(`^configuration error: ${variable}: `));
    expect(printed[0]).toMatch(detail);
  });
});

describe('uWebSockets.js fallback', () => {
  it('refuses to start on the pure-Node fallback, even when asked to allow it', async () => {
    for (const env of [testEnv({ UWS_USE_FALLBACK: '1' }), testEnv({ UWS_USE_FALLBACK: '1', ALLOW_UWS_FALLBACK: 'true' })]) {
      const { code, output } = await runServerToExit(env);
      expect(code).toBe(1);
      expect(output).toMatch(/start-up failed: .*pure-Node fallback/);
      expect(output).toContain('UWS_USE_FALLBACK');
      expect(output).not.toContain('"msg":"listening"');
    }
  });
});

describe('listening', () => {
  it('exits 1 naming the address when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const { code, output } = await runServerToExit(testEnv({ PORT: String(port) }));
      expect(code).toBe(1);
      expect(output).toContain(`start-up failed: cannot listen on 127.0.0.1:${port}`);
      expect(output).not.toContain('"msg":"listening"');
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});

describe('unreachable dependencies', () => {
  it.concurrent(
    'exits 1 within the start-up timeout when Redis does not answer',
    async () => {
      const started = Date.now();
      const { code, output } = await runServerToExit(testEnv({ REDIS_URL: 'redis://127.0.0.1:1' }), 25_000);
      const elapsed = Date.now() - started;
      expect(code).toBe(1);
      expect(output).toMatch(/start-up failed: Redis at redis:\/\/127\.0\.0\.1:1 did not answer within 10 s/);
      expect(output).not.toContain('"msg":"listening"');
      expect(elapsed).toBeGreaterThanOrEqual(9_000);
      // The 10 s, and the process's own start and stop, which took 5.3 s on a loaded machine;
      // well short of a second wait.
      expect(elapsed).toBeLessThan(20_000);
    },
    30_000,
  );

  it.concurrent(
    'exits 1 within the start-up timeout when MongoDB does not answer',
    async () => {
      const started = Date.now();
      const { code, output } = await runServerToExit(testEnv({ MONGODB_URL: 'mongodb://127.0.0.1:1/?directConnection=true' }), 25_000);
      const elapsed = Date.now() - started;
      expect(code).toBe(1);
      expect(output).toMatch(/start-up failed: .*127\.0\.0\.1:1/);
      expect(output).not.toContain('"msg":"listening"');
      // As for Redis above: the 10 s and the process's own start and stop.
      expect(elapsed).toBeLessThan(20_000);
    },
    30_000,
  );
});

describe('the open-file limit', () => {
  it('is logged at start, with a warning when STREAM_MAX_SUBSCRIBERS could not all connect under it', async () => {
    const limit = openFileLimit();
    expect(limit, 'this machine has a limit on open files').toBeGreaterThan(0);
    for (const [maxSubscribers, warns] of [[100, false], [limit! + 1, true]] as const) {
      const server = await spawnServer(testEnv({ STREAM_MAX_SUBSCRIBERS: String(maxSubscribers) }));
      try {
        const logged = lines(server.output()).filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
        expect(logged.find((line) => line.msg === 'open-file limit')).toMatchObject({ openFileLimit: limit, statusStreamMaxSubscribers: maxSubscribers });
        const warning = logged.find((line) => typeof line.msg === 'string' && line.msg.startsWith('the open-file limit'));
        expect(Boolean(warning), server.output()).toBe(warns);
        if (warns) expect(warning).toMatchObject({ level: 40, openFileLimit: limit, needed: maxSubscribers + 1000 });
      } finally {
        server.child.kill('SIGTERM');
        await server.exited;
      }
    }
  });
});
