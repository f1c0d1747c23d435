// Summarises a V8 CPU profile (node --cpu-prof, or BENCH_PROFILE with
// bench/ingress.mjs): self time per function and per package, highest first.
// Usage: node bench/profile-summary.mjs <file.cpuprofile> [top=30]
import fs from 'node:fs';

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error('Usage: node bench/profile-summary.mjs <file.cpuprofile> [top]');
  process.exit(2);
}
const top = Number(topArg ?? 30);
const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map();
// Samples are taken at regular intervals: time deltas attribute time to each sample's node.
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...self.values()].reduce((a, b) => a + b, 0);

function where(url) {
  if (!url) return '(native)';
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (match) return match[1];
  if (url.startsWith('node:')) return 'node';
  if (url.includes('/.next/')) return 'app (bundled)';
  return url.replace(/^file:\/\//, '');
}

const functions = new Map();
const packages = new Map();
for (const [id, time] of self) {
  const { callFrame } = byId.get(id);
  const name = `${callFrame.functionName || '(anonymous)'} ${where(callFrame.url)}:${callFrame.lineNumber + 1}`;
  functions.set(name, (functions.get(name) ?? 0) + time);
  packages.set(where(callFrame.url), (packages.get(where(callFrame.url)) ?? 0) + time);
}
const show = (title, map) => {
  console.log(`\n${title}`);
  for (const [name, time] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((time / total) * 100).toFixed(1).padStart(5)} %  ${name}`);
  }
};
console.log(`${(total / 1e6).toFixed(1)} s sampled`);
show('By package', packages);
show('By function', functions);
