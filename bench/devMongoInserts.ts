import { MongoClient } from 'mongodb';
import { startMongoServer } from '../src/embedded/mongoServer.js';
import { HISTORY_INDEXES } from '../src/metadata/mongo.js';
import { HISTORY_COLLECTION } from '../src/metadata/statusChangeHistory.js';
import { cpuSecondsOf } from './lib/processes.js';

// The in-memory MongoDB wire server of `npm run dev` and the bench (jongodb) as the history
// drain uses it: documents shaped like the drain's batches (src/metadata/statusChangeHistory.ts:
// a batch's labels and its entries' text, the same two indexes), inserted two at a time, with
// that process's CPU per document as the collection grows. Production uses MongoDB itself
// (MONGODB_URL); this is the stand-in the bench's whole runs share the machine with. The
// growth is the square of the documents held: each write is checked against the unique
// `_id` index by comparing every document with all before it (docs/benchmarks.md, "The
// development MongoDB"), which is why the bench empties the history between scenarios.
// Usage: node dist/bench/devMongoInserts.js [steps] [documents per step] [entry bytes]

const steps = Number(process.argv[2] ?? 8);
const perStep = Number(process.argv[3] ?? 200);
/** The entries' text per document (a batch of 1,000 two-seat bookings is about 60 KB). */
const entryBytes = Number(process.argv[4] ?? 60_000);
const mongo = await startMongoServer();
const client = await new MongoClient(mongo.url).connect();
try {
  const collection = client.db('devMongoInserts').collection<{ _id: string }>(HISTORY_COLLECTION);
  for (const index of HISTORY_INDEXES) await collection.createIndex(index);
  // A batch of 1,000 two-seat bookings: 2,000 labels, about 60 KB of entries.
  const labels = Array.from({ length: 2000 }, (_, i) => `A-${i}`);
  const entries = 'x'.repeat(entryBytes);
  const figures: { documents: number; cpuMsPerDocument: number }[] = [];
  let n = 0;
  for (let step = 0; step < steps; step++) {
    const before = cpuSecondsOf(mongo.pid);
    for (let i = 0; i < perStep / 2; i++) {
      const documents = [0, 1].map(() => {
        n++;
        return { _id: `e:${n}`, eventId: n % 16, first: n * 1000, last: n * 1000 + 999, labels, entries };
      });
      await collection.insertMany(documents, { ordered: true });
    }
    figures.push({ documents: n, cpuMsPerDocument: Math.round(((cpuSecondsOf(mongo.pid) - before) * 1e5) / perStep) / 100 });
    console.log(`${n} documents: ${figures.at(-1)!.cpuMsPerDocument} ms of the MongoDB process's CPU per document over the last ${perStep}`);
  }
  console.log(JSON.stringify({ steps, perStep, figures }));
} finally {
  await client.close();
  await mongo.stop();
}
