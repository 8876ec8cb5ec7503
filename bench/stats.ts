/**
 * The bench's order statistics, in one place: the median of a run's samples, and the
 * quantiles of issue 14's paired ratios. Values that are not finite (a run that failed to
 * report) are left out.
 */

/** The `q` quantile (0 … 1) of `values`, interpolated between neighbours; NaN when none is finite. */
export function quantile(values: number[], q: number): number {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const i = (sorted.length - 1) * q;
  const lo = Math.floor(i);
  const hi = Math.ceil(i);
  return (sorted[lo] as number) + ((sorted[hi] as number) - (sorted[lo] as number)) * (i - lo);
}

/** The median of `values` (the mean of the middle two for an even count). */
export const median = (values: number[]): number => quantile(values, 0.5);

/**
 * A distribution-free interval for the median of `values` (order statistics): the k-th
 * smallest and k-th largest, with k the largest rank that leaves at most (1 - level) / 2 of
 * the binomial(n, 1/2) on either side. Undefined when too few values for that level (fewer
 * than 6 at 95%).
 */
export function medianInterval(values: number[], level = 0.95): { low: number; high: number } | undefined {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  const n = sorted.length;
  const tail = (1 - level) / 2;
  // P(B <= j) for B ~ binomial(n, 1/2), summed term by term.
  let term = 0.5 ** n;
  let below = 0;
  let k = 0;
  for (let j = 0; j < n; j++) {
    below += term;
    if (below > tail) break;
    k = j + 1; // P(B <= j) <= tail: the (j+1)-th smallest is a lower bound at this level
    term = (term * (n - j)) / (j + 1);
  }
  if (k < 1) return undefined;
  return { low: sorted[k - 1] as number, high: sorted[n - k] as number };
}
