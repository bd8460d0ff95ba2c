/**
 * parseJson against plain JSON.parse on a ~1 MB body shaped like a deep write (orders with lines,
 * decimals, guids, text). Run: `npx tsx packages/odata/bench/parse-json.bench.ts`.
 * parseJson is one extra linear scan plus JSON.parse, so the ratio is at least 1; the aim is ≤ 2.
 */
import { performance } from "node:perf_hooks";
import { parseJson } from "../src/json-body/parse-json.js";
import { defaultBodyLimits } from "../src/limits.js";

function body(targetBytes: number): string {
  const orders: unknown[] = [];
  let size = 0;
  for (let n = 0; size < targetBytes; n++) {
    const order = {
      Guid: crypto.randomUUID(),
      Number: `SO-${100000 + n}`,
      Customer: { Code: `C${n % 500}`, Name: `Customer "${n % 500}" \\ Ltd.` },
      OrderDate: "2024-05-17",
      Notes: "Deliver to the back entrance; call ahead. Fragile — handle with care.",
      Details: Array.from({ length: 5 }, (_, line) => ({
        Line: line + 1,
        Product: { Code: `P-${(n * 7 + line) % 9000}` },
        Quantity: (n + line) % 40,
        UnitPrice: Math.round(((n * 31 + line * 17) % 100000) + 0.25) / 100,
        Discount: 0.05,
        Description: `Hex bolt M${(line % 12) + 3} × ${10 * (line + 1)} mm, zinc plated`,
      })),
    };
    orders.push(order);
    size += JSON.stringify(order).length + 1;
  }
  return JSON.stringify({ value: orders });
}

/** Median milliseconds of each function, run alternately so GC and CPU noise hit both alike. */
function medians(fns: readonly (() => unknown)[], rounds: number): number[] {
  const times = fns.map((): number[] => []);
  for (let r = 0; r < rounds; r++) {
    fns.forEach((fn, k) => {
      const start = performance.now();
      fn();
      times[k]!.push(performance.now() - start);
    });
  }
  return times.map((t) => t.sort((a, b) => a - b)[Math.floor(t.length / 2)]!);
}

const text = body(1024 * 1024);
const plain = () => JSON.parse(text);
const guarded = () => parseJson(text, defaultBodyLimits);
medians([plain, guarded], 30); // warm-up
const [plainMs = 0, guardedMs = 0] = medians([plain, guarded], 300);
console.log(`body: ${(text.length / 1024 / 1024).toFixed(2)} MB`);
console.log(`JSON.parse: ${plainMs.toFixed(2)} ms   parseJson: ${guardedMs.toFixed(2)} ms`);
console.log(`ratio parseJson / JSON.parse: ${(guardedMs / plainMs).toFixed(2)}x`);
