/**
 * The pool's connection queues (open, busy, …) are never empty while connections idle: every query
 * moves a connection out of one queue (remove) and into another (push), and takes one off the
 * front (shift). postgres.js 3.4.9's queue reset its storage only when emptied, so it kept a dead
 * slot per shift, and remove scanned them all: a pool got slower with every query it had served.
 */
import { describe, expect, it } from "vitest";
import Queue, { type FifoQueue } from "./queue.js";

/** ms for `moves` moves of `x` to the back of `queue`, the way the pool moves a connection; the quickest of five tries */
function timeMoves(queue: FifoQueue<object>, x: object, moves: number): number {
  let quickest = Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < 5; attempt++) {
    const started = performance.now();
    for (let i = 0; i < moves; i++) queue.push(queue.remove(x)!);
    quickest = Math.min(quickest, performance.now() - started);
  }
  return quickest;
}

describe("the driver's queue", () => {
  it("serves first in, first out, removes from the middle, and keeps its order across compaction", () => {
    const queue = Queue<number>([1, 2, 3]);
    expect(queue.remove(2)).toBe(2);
    expect(queue.remove(9)).toBeNull();
    for (let n = 4; n < 100; n++) queue.push(n);
    const out: (number | undefined)[] = [];
    while (queue.length > 1) out.push(queue.shift());
    expect(out).toEqual([1, 3, ...Array.from({ length: 95 }, (_, i) => i + 4)]);
    expect([queue.peek(), queue.length]).toEqual([99, 1]);
  });

  it("costs no more to move an entry after 300,000 shifts of a queue that never empties than at first", () => {
    let newest = {};
    const queue = Queue<object>([{}, newest]);
    const first = timeMoves(queue, newest, 2000);
    // connections taking turns through a queue that always holds some
    for (let i = 0; i < 300_000; i++) {
      newest = queue.push({});
      queue.shift();
    }
    expect(queue.length).toBe(2);
    const later = timeMoves(queue, newest, 2000);
    expect(later).toBeLessThan(first * 10 + 5);
  });
});
