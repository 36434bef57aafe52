import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const valid = { REDIS_URL: 'redis://127.0.0.1:6390', MONGODB_URL: 'mongodb://127.0.0.1:27017/shop' };

describe('loadConfig', () => {
  it('applies defaults', () => {
    const config = loadConfig(valid);
    expect(config).toMatchObject({
      port: 9001,
      host: '0.0.0.0',
      mongodbDb: 'shop',
      logLevel: 'info',
      maxBodyBytes: 1024 * 1024,
      systemApiSecret: undefined,
      redisTimeoutMs: 2_000,
      maxPendingStatusChanges: 10_000,
      backgroundJobs: true,
      legacyV1Prefix: '/api',
    });
    expect(loadConfig({ ...valid, BACKGROUND_JOBS: 'off' }).backgroundJobs).toBe(false);
  });

  it('takes PUBLIC_URL without trailing slashes, unset by default', () => {
    expect(loadConfig(valid).publicUrl).toBeUndefined();
    expect(loadConfig({ ...valid, PUBLIC_URL: 'https://seats.example.com/api/' }).publicUrl).toBe('https://seats.example.com/api');
  });

  it('takes LEGACY_V1_PREFIX as a path of one or more segments', () => {
    expect(loadConfig({ ...valid, LEGACY_V1_PREFIX: '/legacy/v1' }).legacyV1Prefix).toBe('/legacy/v1');
  });

  it('uses REDIS_URL, or the cluster of REDIS_CLUSTER_NODES when that is set', () => {
    expect(loadConfig(valid).redis).toEqual({ url: 'redis://127.0.0.1:6390' });
    const cluster = { MONGODB_URL: valid.MONGODB_URL, REDIS_CLUSTER_NODES: '10.0.0.1:7000, redis-b.internal:7001,[::1]:7002', REDIS_CLUSTER_PASSWORD: 'pw' };
    expect(loadConfig(cluster).redis).toEqual({
      clusterNodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: 'redis-b.internal', port: 7001 },
        { host: '::1', port: 7002 },
      ],
      username: undefined,
      password: 'pw',
    });
    for (const bad of ['10.0.0.1', '10.0.0.1:0', 'a:70000', 'redis://a:7000', '10.0.0.1:7000,']) {
      expect(() => loadConfig({ ...cluster, REDIS_CLUSTER_NODES: bad }), bad).toThrow(/REDIS_CLUSTER_NODES: expected host:port/);
    }
    expect(() => loadConfig({ MONGODB_URL: valid.MONGODB_URL })).toThrow(/REDIS_URL: is required/);
  });

  it('uses the primary REDIS_SENTINELS watch under REDIS_SENTINEL_NAME when REDIS_SENTINELS is set', () => {
    const sentinel = { MONGODB_URL: valid.MONGODB_URL, REDIS_SENTINELS: '10.0.0.1:26379, s2.internal:26380', REDIS_SENTINEL_NAME: 'inventory' };
    expect(loadConfig(sentinel).redis).toEqual({
      sentinels: [
        { host: '10.0.0.1', port: 26379 },
        { host: 's2.internal', port: 26380 },
      ],
      name: 'inventory',
      sentinelPassword: undefined,
      password: undefined,
    });
    expect(loadConfig({ ...sentinel, REDIS_SENTINEL_PASSWORD: 'spw', REDIS_PASSWORD: 'pw' }).redis).toMatchObject({ sentinelPassword: 'spw', password: 'pw' });
    // Set, it wins over REDIS_URL, which a deployment may keep beside it.
    expect(loadConfig({ ...sentinel, REDIS_URL: valid.REDIS_URL }).redis).toHaveProperty('sentinels');
    expect(() => loadConfig({ ...sentinel, REDIS_SENTINEL_NAME: '' })).toThrow(/REDIS_SENTINEL_NAME: is required with REDIS_SENTINELS/);
    expect(() => loadConfig({ ...sentinel, REDIS_SENTINEL_NAME: 'a b' })).toThrow(/REDIS_SENTINEL_NAME/);
    expect(() => loadConfig({ ...sentinel, REDIS_SENTINELS: '10.0.0.1' })).toThrow(/REDIS_SENTINELS: expected host:port/);
    expect(() => loadConfig({ ...sentinel, REDIS_CLUSTER_NODES: '10.0.0.1:7000' })).toThrow(/REDIS_SENTINELS: set REDIS_SENTINELS or REDIS_CLUSTER_NODES, not both/);
  });

  it('waits for no replica by default; REDIS_REPLICA_ACKS replicas, 0 to 16', () => {
    expect(loadConfig(valid).replicaAcks).toBe(0);
    expect(loadConfig({ ...valid, REDIS_REPLICA_ACKS: '2' }).replicaAcks).toBe(2);
    expect(() => loadConfig({ ...valid, REDIS_REPLICA_ACKS: '17' })).toThrow(/REDIS_REPLICA_ACKS: must be between 0 and 16/);
    expect(() => loadConfig({ ...valid, REDIS_REPLICA_ACKS: 'all' })).toThrow(/REDIS_REPLICA_ACKS: expected a whole number/);
  });

  it('lowers reader threads to nice 10 unless READER_THREAD_NICE says otherwise, 0 to 19', () => {
    expect(loadConfig(valid).readerThreadNice).toBe(10);
    expect(loadConfig({ ...valid, READER_THREAD_NICE: '0' }).readerThreadNice).toBe(0);
    expect(loadConfig({ ...valid, READER_THREAD_NICE: '19' }).readerThreadNice).toBe(19);
    expect(() => loadConfig({ ...valid, READER_THREAD_NICE: '20' })).toThrow(/READER_THREAD_NICE: must be between 0 and 19/);
    expect(() => loadConfig({ ...valid, READER_THREAD_NICE: '-1' })).toThrow(/READER_THREAD_NICE: expected a whole number/);
  });

  it('runs one server process unless WORKERS says more', () => {
    expect(loadConfig(valid).workers).toBe(1);
    expect(loadConfig({ ...valid, WORKERS: '4' }).workers).toBe(4);
  });

  it('limits no lane unless PRIORITY_LANE_CONCURRENCY_LIMIT or REGULAR_LANE_CONCURRENCY_LIMIT says so', () => {
    expect(loadConfig(valid).concurrencyLimits).toEqual({ priority: 0, regular: 0 });
    expect(loadConfig({ ...valid, PRIORITY_LANE_CONCURRENCY_LIMIT: '', REGULAR_LANE_CONCURRENCY_LIMIT: '0' }).concurrencyLimits).toEqual({ priority: 0, regular: 0 });
    expect(loadConfig({ ...valid, PRIORITY_LANE_CONCURRENCY_LIMIT: '100', REGULAR_LANE_CONCURRENCY_LIMIT: '10' }).concurrencyLimits).toEqual({ priority: 100, regular: 10 });
    expect(loadConfig({ ...valid, REGULAR_LANE_CONCURRENCY_LIMIT: '3' }).concurrencyLimits).toEqual({ priority: 0, regular: 3 });
  });

  it('takes the status stream limits from STREAM_*, refusing what is not a sane number', () => {
    expect(loadConfig(valid).statusStream).toEqual({ maxSubscribers: 20_000, maxEventSubscribers: 10_000, retainedChanges: 10_000, tickMs: 100, blockedCloseMs: 30_000, maxMessageBytes: 1024 });
    expect(loadConfig(valid).readerThreadNice).toBe(10);
    expect(loadConfig({ ...valid, STREAM_TICK_MS: '250', STREAM_BLOCKED_CLOSE_MS: '5000', READER_THREAD_NICE: '19' })).toMatchObject({ statusStream: { tickMs: 250, blockedCloseMs: 5000 }, readerThreadNice: 19 });
    for (const [name, value] of [['STREAM_TICK_MS', '2'], ['STREAM_TICK_MS', '1001'], ['STREAM_BLOCKED_CLOSE_MS', '999'], ['READER_THREAD_NICE', '20'], ['READER_THREAD_NICE', '-1']] as const) {
      expect(() => loadConfig({ ...valid, [name]: value }), `${name}=${value}`).toThrow(name);
    }
    expect(loadConfig({ ...valid, STREAM_MAX_EVENT_SUBSCRIBERS: '3', STREAM_RETAINED_CHANGES: '0' }).statusStream).toMatchObject({ maxEventSubscribers: 3, retainedChanges: 0 });
    expect(() => loadConfig({ ...valid, STREAM_MAX_SUBSCRIBERS: '0' })).toThrow(/STREAM_MAX_SUBSCRIBERS/);
    // Variables of earlier versions stop the start, saying what replaced them.
    expect(() => loadConfig({ ...valid, STREAM_MAX_BACKPRESSURE_BYTES: '1048576' })).toThrow(/STREAM_MAX_BACKPRESSURE_BYTES: no longer used/);
    expect(() => loadConfig({ ...valid, STREAM_MAX_BUFFERED_BYTES: '1000' })).toThrow(/STREAM_MAX_BUFFERED_BYTES: no longer used/);
    expect(() => loadConfig({ ...valid, STREAM_BATCH_MS: '25' })).toThrow(/STREAM_BATCH_MS: replaced by STREAM_TICK_MS/);
    expect(() => loadConfig({ ...valid, STREAM_MAX_MESSAGE_BYTES: 'big' })).toThrow(/STREAM_MAX_MESSAGE_BYTES/);
  });

  it('takes the database from MONGODB_DB, else the URL, else "seatsio"', () => {
    expect(loadConfig({ ...valid, MONGODB_DB: 'other' }).mongodbDb).toBe('other');
    expect(loadConfig({ ...valid, MONGODB_URL: 'mongodb://h:1/?directConnection=true' }).mongodbDb).toBe('seatsio');
  });

  it.each([
    ['PORT', { PORT: 'abc' }],
    ['PORT', { PORT: '70000' }],
    ['REDIS_URL', { REDIS_URL: undefined }],
    ['REDIS_URL', { REDIS_URL: 'http://localhost' }],
    ['MONGODB_URL', { MONGODB_URL: 'not a url' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['MAX_BODY_BYTES', { MAX_BODY_BYTES: '5' }],
    ['SYSTEM_API_SECRET', { SYSTEM_API_SECRET: 'short' }],
    ['MONGODB_DB', { MONGODB_DB: 'a/b' }],
    ['PUBLIC_URL', { PUBLIC_URL: 'ftp://seats.example' }],
    ['PUBLIC_URL', { PUBLIC_URL: 'not a url' }],
    ['REDIS_TIMEOUT_MS', { REDIS_TIMEOUT_MS: '50' }],
    ['REDIS_TIMEOUT_MS', { REDIS_TIMEOUT_MS: '2s' }],
    ['MAX_PENDING_STATUS_CHANGES', { MAX_PENDING_STATUS_CHANGES: '0' }],
    ['BACKGROUND_JOBS', { BACKGROUND_JOBS: 'yes' }],
    ['LEGACY_V1_PREFIX', { LEGACY_V1_PREFIX: 'api' }],
    ['LEGACY_V1_PREFIX', { LEGACY_V1_PREFIX: '/api/' }],
    ['LEGACY_V1_PREFIX', { LEGACY_V1_PREFIX: '/a:b' }],
    ['WORKERS', { WORKERS: '0' }],
    ['WORKERS', { WORKERS: 'two' }],
    ['PRIORITY_LANE_CONCURRENCY_LIMIT', { PRIORITY_LANE_CONCURRENCY_LIMIT: '-1' }],
    ['PRIORITY_LANE_CONCURRENCY_LIMIT', { PRIORITY_LANE_CONCURRENCY_LIMIT: '100k' }],
    ['REGULAR_LANE_CONCURRENCY_LIMIT', { REGULAR_LANE_CONCURRENCY_LIMIT: '1.5' }],
    ['REGULAR_LANE_CONCURRENCY_LIMIT', { REGULAR_LANE_CONCURRENCY_LIMIT: '2000000' }],
  ])('names %s when it is bad', (variable, overrides) => {
    let error: unknown;
    try {
      loadConfig({ ...valid, ...overrides });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe(variable);
    expect((error as ConfigError).message).toMatch(new RegExp(`^${variable}: `));
    expect((error as ConfigError).message).not.toContain('\n');
  });
});

describe('writeConcernFor', () => {
  it('asks for majority on a replica set unless the URL says w=, nothing on a single node', async () => {
    const { writeConcernFor } = await import('../../src/metadata/mongo.js');
    expect(writeConcernFor('mongodb://a,b,c/shop?replicaSet=rs0')).toEqual({ writeConcern: { w: 'majority' } });
    expect(writeConcernFor('mongodb+srv://cluster0.example.net/shop')).toEqual({ writeConcern: { w: 'majority' } });
    expect(writeConcernFor('mongodb://a,b,c/shop?replicaSet=rs0&w=1')).toEqual({});
    expect(writeConcernFor('mongodb://127.0.0.1:27017/?directConnection=true')).toEqual({});
  });
});
