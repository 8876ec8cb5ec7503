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
