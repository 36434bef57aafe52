import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Worker, type ResourceLimits, type Transferable } from 'node:worker_threads';
import { projectDir } from './projectDir.js';

// A worker thread beside the event loop that serves the sale, for work that reads (the
// status stream's fan-out, reports: docs/operations.md, "Reader threads"). It runs the built
// file (dist/), so `npm run build` comes first, as before `npm start` and `npm test`; the
// thread lowers its own CPU priority (lowerThisThreadPriority), so when the cores are short
// the sale's thread wins. The owner decides what a crash means for the work it had given the
// thread; the thread is started again after a pause that grows while it keeps dying.

/** The first restart waits this long; each crash in a row doubles it up to MAX_RESTART_MS. */
const FIRST_RESTART_MS = 100;
const MAX_RESTART_MS = 5_000;
/** A thread that ran this long before dying starts the next restart from FIRST_RESTART_MS again. */
const STABLE_MS = 30_000;

/**
 * The stream thread's heap limits: a young generation of a few MB (semi-spaces of 4 MB,
 * against the server's 16: src/serverFlags.ts), since nothing waits on its scavenges and
 * what it makes (frames, views) is small.
 */
export const STREAM_THREAD_LIMITS = { maxYoungGenerationSizeMb: 12 };

/**
 * The report thread's: semi-spaces of 8 MB. A big report makes a slice's texts (some 1.5 MB
 * per 2,000 objects) faster than 4-MB semi-spaces let them die young: with 12 MB, a
 * detailed report of 100,000 objects spent about a fifth more CPU, collecting what it had
 * promoted. 48 MB (the server's 16-MB semi-spaces) saved a few percent more for some 40 MB
 * more at the peak (docs/reports.md, "The report thread").
 */
export const REPORT_THREAD_LIMITS = { maxYoungGenerationSizeMb: 24 };

/** Where a thread entry file of src/ is once built: `streamThread` -> dist/src/streamThread.js. */
export const builtEntry = (name: string): string => join(projectDir(), 'dist', 'src', `${name}.js`);

/**
 * V8 sizes a new isolate's young generation by `--max-semi-space-size` when the process was
 * started with it (the server is: src/serverFlags.ts), whatever the Worker's resourceLimits
 * say. The server's own heap was sized at start; dropping the flag now lets each thread's
 * limit hold (without it, the report thread's young generation grew to the server's 32 MB).
 */
function youngGenerationBySizeLimits(): void {
  setFlagsFromString('--max-semi-space-size=0');
}

export interface ReaderThreadOptions<Out> {
  /** The built entry file (builtEntry). */
  file: string;
  /** What the thread gets as workerData (plain data: it is copied). */
  workerData: unknown;
  onMessage(message: Out): void;
  /** The thread died (not stopped): what it was given is gone; it is started again. */
  onCrash(error: Error | undefined): void;
  /** Called each time the thread (re)starts, before any message is posted to it. */
  onStart?(): void;
  /** Bounds on the thread's heap; its young generation stays small (each isolate sizes its own). */
  resourceLimits?: ResourceLimits;
}

export class ReaderThread<In, Out> {
  private worker: Worker | undefined;
  private stopping = false;
  private restartMs = FIRST_RESTART_MS;
  private startedAt = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  /** Exits seen, crashes included (tests wait on them). */
  restarts = 0;

  constructor(private readonly options: ReaderThreadOptions<Out>) {}

  get running(): boolean {
    return this.worker !== undefined;
  }

  /** Starts the thread if it is not running. */
  start(): void {
    if (this.worker || this.stopping) return;
    clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    if (this.options.resourceLimits?.maxYoungGenerationSizeMb) youngGenerationBySizeLimits();
    const worker = new Worker(this.options.file, { workerData: this.options.workerData, resourceLimits: this.options.resourceLimits });
    this.worker = worker;
    this.startedAt = Date.now();
    let failure: Error | undefined;
    worker.on('message', (message: Out) => this.options.onMessage(message));
    worker.on('error', (error) => (failure = error));
    worker.on('exit', () => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      if (this.stopping) return;
      this.restarts++;
      this.restartMs = Date.now() - this.startedAt > STABLE_MS ? FIRST_RESTART_MS : Math.min(this.restartMs * 2, MAX_RESTART_MS);
      this.options.onCrash(failure);
      this.restartTimer = setTimeout(() => this.start(), this.restartMs);
    });
    // Nothing of the thread's keeps the process alive: the owner stops it on shutdown.
    worker.unref();
    this.options.onStart?.();
  }

  /** Posts a message to the running thread; false when it is not running (the message is dropped). */
  post(message: In, transfer?: readonly Transferable[]): boolean {
    if (!this.worker) return false;
    this.worker.postMessage(message, transfer);
    return true;
  }

  /** Ends the thread as a crash would (tests of what a crash does). */
  async kill(): Promise<void> {
    await this.worker?.terminate();
  }

  /** Stops the thread for good. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }
}
