import { readFileSync } from 'node:fs';
import { improvementFactors, type AlternatingSummary } from './lib/alternating.js';

// `npm run bench:factors -- BEFORE.json[,BEFORE2.json...] AFTER.json[,AFTER2.json...]`: how many
// times each figure of the alternating rounds went down from one version to another
// (bench/lib/alternating.ts, improvementFactors; docs/benchmarks.md, "Before and after by
// factors"). Each side is the output of one or more `node dist/bench/run.js --alternate N`
// runs, the earlier version's measured with `--server-dir`, the runs of the two sides
// interleaved in the same hour. Prints a table, then the factors as one JSON line.

const [beforeFiles, afterFiles] = process.argv.slice(2);
if (!beforeFiles || !afterFiles) {
  console.error('usage: node dist/bench/factors.js BEFORE.json[,...] AFTER.json[,...]');
  process.exit(2);
}

const roundsOf = (files: string) =>
  files.split(',').flatMap((file) => {
    const report = JSON.parse(readFileSync(file, 'utf8')) as { alternating?: AlternatingSummary };
    if (!report.alternating) throw new Error(`${file} has no alternating rounds: run the bench with --alternate N`);
    return report.alternating.rounds;
  });

const before = roundsOf(beforeFiles);
const after = roundsOf(afterFiles);
const factors = improvementFactors(before, after);
const spread = (s: { median: number; min: number; max: number }) => `${s.median.toFixed(2)} (${s.min.toFixed(2)}–${s.max.toFixed(2)})`;
console.log(`against the reference of each round; ${before.length} rounds before, ${after.length} after; median (lowest–highest)`);
console.log(`${'figure'.padEnd(24)}${'before'.padEnd(20)}${'after'.padEnd(20)}${'factor'.padEnd(8)}of book2's factor (5th–95th percentile, rounds drawn again)`);
for (const [name, f] of Object.entries(factors)) {
  console.log(`${name.padEnd(24)}${spread(f.before).padEnd(20)}${spread(f.after).padEnd(20)}${f.factor.toFixed(2).padEnd(8)}${f.ofBook2Factor === undefined ? '' : `${f.ofBook2Factor.toFixed(2)} (${f.ofBook2Interval![0].toFixed(2)}–${f.ofBook2Interval![1].toFixed(2)})`}`);
}
console.log(JSON.stringify(factors));
