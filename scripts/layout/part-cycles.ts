/** Rule 2: the top-level parts of src/ import each other without a cycle. */
import { posix } from 'node:path';
import type { ImportRef, ParsedFile, Violation } from './source-files.ts';

/** `src/query/a/b.ts` → `query`, `src/config.ts` → `config.ts`; outside src/, none. */
export function partOf(path: string): string | undefined {
  // A folder's name and a root file's name are both the segment after src/.
  const [top, part, ...rest] = path.split('/');
  return top === 'src' && part !== undefined && (rest.length > 0 || /\.tsx?$/.test(part)) ? part : undefined;
}

/** The file a relative specifier names among `known`, as NodeNext plus tsx would find it. */
export function resolveRelative(from: string, specifier: string, known: ReadonlySet<string>): string | undefined {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  const base = posix.normalize(posix.join(posix.dirname(from), specifier));
  const stem = base.replace(/\.jsx?$/, '');
  const candidates = [base, ...(stem === base ? [] : [`${stem}.ts`, `${stem}.tsx`, `${stem}.d.ts`])];
  candidates.push(`${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`);
  return candidates.find((candidate) => known.has(candidate));
}

export interface EdgeExample {
  from: string;
  line: number;
  to: string;
}

/** part → part → the first import (in sorted file order) that makes the edge. */
export type PartGraph = Map<string, Map<string, EdgeExample>>;

export function buildPartGraph(files: readonly ParsedFile[], importsOf: (file: ParsedFile) => readonly ImportRef[]): PartGraph {
  const known = new Set(files.map((file) => file.path));
  const graph: PartGraph = new Map();
  for (const file of files) {
    const from = partOf(file.path);
    if (from === undefined) continue;
    if (!graph.has(from)) graph.set(from, new Map());
    for (const ref of importsOf(file)) {
      const target = resolveRelative(file.path, ref.specifier, known);
      const to = target === undefined ? undefined : partOf(target);
      if (target === undefined || to === undefined || to === from) continue;
      const edges = graph.get(from)!;
      if (!edges.has(to)) edges.set(to, { from: file.path, line: ref.line, to: target });
      if (!graph.has(to)) graph.set(to, new Map());
    }
  }
  return graph;
}

/** Tarjan's strongly connected components, each sorted, in a stable order. */
export function stronglyConnected(graph: PartGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of [...(graph.get(node)?.keys() ?? [])].sort()) {
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    components.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) connect(node);
  return components.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** The shortest cycle from `start` back to it inside `component` (breadth first), without the closing repeat. */
export function shortestCycleThrough(graph: PartGraph, component: ReadonlySet<string>, start: string): string[] | undefined {
  const previous = new Map<string, string>();
  const queue = [start];
  for (let at = 0; at < queue.length; at++) {
    const node = queue[at]!;
    for (const next of [...(graph.get(node)?.keys() ?? [])].sort()) {
      if (!component.has(next)) continue;
      if (next === start) {
        const cycle = [node];
        while (cycle[0] !== start) cycle.unshift(previous.get(cycle[0]!)!);
        return cycle;
      }
      if (previous.has(next)) continue;
      previous.set(next, node);
      queue.push(next);
    }
  }
  return undefined;
}

/**
 * Per component, the shortest cycles that together pass through every part of
 * it: enough to see each part's way into the knot, without listing the
 * exponentially many cycles a dense component has.
 */
export function cyclesToReport(graph: PartGraph): string[][] {
  const cycles: string[][] = [];
  for (const members of stronglyConnected(graph)) {
    if (members.length < 2) continue;
    const component = new Set(members);
    const found = new Map<string, string[]>();
    for (const start of members) {
      const cycle = shortestCycleThrough(graph, component, start);
      if (!cycle) continue;
      const rotated = rotateToSmallest(cycle);
      found.set(rotated.join('\0'), rotated);
    }
    const byLength = [...found.values()].sort((a, b) => a.length - b.length || a.join(' ').localeCompare(b.join(' ')));
    const covered = new Set<string>();
    for (const cycle of byLength) {
      if (cycle.every((part) => covered.has(part))) continue;
      cycle.forEach((part) => covered.add(part));
      cycles.push(cycle);
    }
  }
  return cycles;
}

function rotateToSmallest(cycle: readonly string[]): string[] {
  const smallest = [...cycle].sort()[0]!;
  const at = cycle.indexOf(smallest);
  return [...cycle.slice(at), ...cycle.slice(0, at)];
}

export function checkCycles(graph: PartGraph): Violation[] {
  const components = stronglyConnected(graph).filter((members) => members.length > 1);
  return cyclesToReport(graph).map((cycle) => {
    const examples = cycle.map((part, i) => graph.get(part)!.get(cycle[(i + 1) % cycle.length]!)!);
    const component = components.find((members) => members.includes(cycle[0]!))!;
    const within = component.length > cycle.length ? ` (one cycle of the component ${component.join(', ')})` : '';
    const where = examples.map((edge) => `${edge.from}:${edge.line} → ${edge.to}`).join('; ');
    return {
      file: examples[0]!.from,
      line: examples[0]!.line,
      message: `import cycle between parts of src/: ${[...cycle, cycle[0]].join(' → ')}${within}; ${where}`,
    };
  });
}
