// the types of the driver's internal queue (src/queue.js), for its test; not packed
export interface FifoQueue<T> {
  readonly length: number;
  push(x: T): T;
  shift(): T | undefined;
  peek(): T | undefined;
  remove(x: T): T | null;
}
export default function Queue<T>(initial?: readonly T[]): FifoQueue<T>;
