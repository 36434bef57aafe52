// What `npm start` (src/main.ts) and `npm run worker` (src/worker.ts) share: start, or exit 1
// with the reason; then stop once on SIGTERM or SIGINT and exit 0 when the stop was clean.

export async function runUntilSignalled<T>(
  start: () => Promise<T>,
  stop: (running: T, signal: string) => Promise<boolean>,
): Promise<T> {
  let running: T;
  try {
    running = await start();
  } catch (error) {
    console.error(`start-up failed: ${(error as Error).message}`);
    process.exit(1);
  }
  let stopping = false;
  const onSignal = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const clean = await stop(running, signal);
    process.exit(clean ? 0 : 1);
  };
  process.on('SIGTERM', () => void onSignal('SIGTERM'));
  process.on('SIGINT', () => void onSignal('SIGINT'));
  return running;
}
