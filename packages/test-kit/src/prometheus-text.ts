/**
 * Reads one sample out of Prometheus text exposition, for tests that watch metrics move.
 */

/** the value of `name` whose labels include all of `labels`, summed over the rest; 0 when absent */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match?.[1] !== name) continue;
    const given = Object.fromEntries(
      [...(match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => given[k] === v)) total += Number(match[3]);
  }
  return total;
}
