/**
 * Summarises .cpuprofile files (node --cpu-prof, one per thread): total
 * sampled time and the functions with the most self time, per thread.
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/diag/export-threads.ts
 *   npx tsx bench/diag/profile-summary.ts /tmp/prof [top=15]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const [dir = '/tmp/prof', topArg = '15'] = process.argv.slice(2);
for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).sort()) {
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  let idle = 0;
  profile.samples.forEach((id, i) => {
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    const node = byId.get(id)!;
    const name = node.callFrame.functionName || '(anonymous)';
    if (name === '(idle)' || name === '(program)') idle += dt;
    else total += dt;
    const url = node.callFrame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/main\//, '');
    const key = `${name} ${url}:${node.callFrame.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + dt);
  });
  if (total < 200) continue;
  console.log(`\n${file}: ${(total / 1000).toFixed(2)} s busy, ${(idle / 1000).toFixed(2)} s idle/program`);
  const top = [...self.entries()].filter(([k]) => !k.startsWith('(idle)')).sort((a, b) => b[1] - a[1]).slice(0, Number(topArg));
  for (const [key, t] of top) console.log(`  ${(t / 1000).toFixed(2).padStart(6)} s  ${key.slice(0, 130)}`);
}
