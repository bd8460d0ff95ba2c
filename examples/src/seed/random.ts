/**
 * A seeded pseudo-random source, so sample data is the same on every machine and every run.
 * sfc32 keeps 128 bits of state: a Guid is four consecutive outputs, and a 32-bit-state generator
 * could not produce more distinct Guids than it has states.
 */
export interface Random {
  /** uniform in [0, 1) */
  float(): number;
  /** uniform integer in [min, max] */
  int(min: number, max: number): number;
  /** true with probability `p` */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** a lowercase UUID with the version 4 and variant bits set */
  uuid(): string;
}

/** Only the low 32 bits of `seed` count. */
export function createRandom(seed: number): Random {
  if (!Number.isInteger(seed)) throw new RangeError(`The seed must be an integer, got ${seed}.`);
  const next = sfc32(seed);
  const float = () => next() / 0x1_0000_0000;
  return {
    float,
    int: (min, max) => min + Math.floor(float() * (max - min + 1)),
    chance: (p) => float() < p,
    pick: (items) => {
      if (items.length === 0) throw new RangeError("Cannot pick from an empty list.");
      return items[Math.floor(float() * items.length)]!;
    },
    uuid: () => {
      const a = next();
      const b = next();
      const c = next();
      const d = next();
      return (
        `${hex(a, 8)}-${hex(b >>> 16, 4)}-${hex(0x4000 | (b & 0x0fff), 4)}-` +
        `${hex(0x8000 | ((c >>> 16) & 0x3fff), 4)}-${hex(c & 0xffff, 4)}${hex(d, 8)}`
      );
    },
  };
}

const hex = (n: number, digits: number) => n.toString(16).padStart(digits, "0");

function sfc32(seed: number): () => number {
  // splitmix32 spreads the seed over the state, so nearby seeds give unrelated streams
  let s = seed | 0;
  const mix = () => {
    s = (s + 0x9e3779b9) | 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
    z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
    return (z ^ (z >>> 15)) | 0;
  };
  let a = mix();
  let b = mix();
  let c = mix();
  let d = mix();
  const next = () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  // the first outputs still carry the structure of the seeding; skip them
  for (let i = 0; i < 12; i++) next();
  return next;
}
