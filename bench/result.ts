/**
 * One target's figures, printed by a benchmark as a `RESULT {json}` line so that
 * `npm run bench:all` can gather every script's results into one table.
 */
export interface BenchResult {
  /** The target as the table shows it, e.g. "GET /v1/vehicles/{id} throughput". */
  target: string;
  /** The project's figure with its unit, e.g. "1,234 req/s". */
  project: string;
  /** The bare baseline's figure doing the same work ("-" where a target has no baseline). */
  baseline: string;
  /** project/baseline (or the figure the goal is about), as shown, e.g. "0.62" or "1.8x". */
  ratio: string;
  /** The goal, e.g. ">= 0.6 of baseline", "<= 4 statements". */
  goal: string;
  meets: boolean;
}

export function reportResult(result: BenchResult): void {
  console.log(`RESULT ${JSON.stringify(result)}`);
}
