// Seeded randomness for the chaos test: the same seed draws the same fault schedule and the
// same choices in each workload story. Each story and the schedule draw from a stream of their
// own (derived from the seed and a label), so one story's choices do not depend on how the
// others interleaved with it.
import { createHash } from 'node:crypto';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

export class Rng {
  private readonly generator: ReturnType<typeof xoroshiro128plus>;

  constructor(readonly seed: number, readonly label = 'root') {
    this.generator = xoroshiro128plus(deriveSeed(seed, label));
  }

  /** A stream of its own for `label`, the same for the same seed whatever was drawn before. */
  fork(label: string): Rng {
    return new Rng(this.seed, `${this.label}/${label}`);
  }

  /** A whole number in [min, max]. */
  int(min: number, max: number): number {
    return uniformInt(this.generator, min, max);
  }

  /** A number in [min, max), in thousandths. */
  between(min: number, max: number): number {
    return min + (this.int(0, 999) / 1000) * (max - min);
  }

  chance(probability: number): boolean {
    return this.int(0, 9999) < probability * 10_000;
  }

  pick<T>(list: readonly T[]): T {
    if (list.length === 0) throw new Error('Rng.pick: empty list');
    return list[this.int(0, list.length - 1)];
  }

  /** One of the keys of `weights`, with probability proportional to its weight. */
  weighted<K extends string>(weights: Record<K, number>): K {
    const entries = Object.entries(weights) as [K, number][];
    const total = entries.reduce((s, [, w]) => s + w, 0);
    let n = this.between(0, total);
    for (const [key, weight] of entries) {
      if (n < weight) return key;
      n -= weight;
    }
    return entries[entries.length - 1][0];
  }
}

function deriveSeed(seed: number, label: string): number {
  return createHash('sha256').update(`${seed}:${label}`).digest().readInt32LE(0);
}

/** A seed for a run that was not given one (printed, so that the run can be repeated). */
export function freshSeed(): number {
  return Math.floor(Math.random() * 2 ** 31);
}
