/** The hottest functions of a `node --cpu-prof` profile, by self time. */
import * as fs from 'node:fs';
import { SourceMap } from 'node:module';
import * as path from 'node:path';

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
}

/**
 * Lines "self ms  %  function  (where)", hottest first, `where` being the source file and line of the
 * function (through the bundle's source map), or Node's own module, or 'native'.
 */
export function topFunctions(profileFile: string, bundle: string, n: number): string[] {
  const prof = JSON.parse(fs.readFileSync(profileFile, 'utf8')) as Profile;
  const map = new SourceMap(JSON.parse(fs.readFileSync(`${bundle}.map`, 'utf8')));
  const bundleUrl = `file://${path.resolve(bundle)}`;
  const where = ({ url, lineNumber, columnNumber }: ProfileNode['callFrame']) => {
    if (url !== bundleUrl) return url ? url.replace(/^file:\/\/.*\/node_modules\//, '') : 'native';
    const e = map.findEntry(lineNumber, columnNumber) as { originalSource?: string; originalLine?: number };
    if (e.originalSource === undefined) return 'bench bundle';
    const src = path.relative(
      process.cwd(),
      path.resolve(path.dirname(bundle), e.originalSource.replace(/^file:\/\//, '')),
    );
    return `${src}:${(e.originalLine ?? 0) + 1}`;
  };
  const msPerSample = (prof.endTime - prof.startTime) / 1000 / prof.samples.length;
  const self = new Map<string, number>();
  let total = 0;
  for (const node of prof.nodes) {
    const hits = node.hitCount ?? 0;
    if (!hits) continue;
    const key = `${node.callFrame.functionName || '(anonymous)'}  (${where(node.callFrame)})`;
    self.set(key, (self.get(key) ?? 0) + hits);
    total += hits;
  }
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(
      ([key, hits]) =>
        `${(hits * msPerSample).toFixed(0).padStart(7)} ms ${((100 * hits) / total).toFixed(1).padStart(5)}%  ${key}`,
    );
}
