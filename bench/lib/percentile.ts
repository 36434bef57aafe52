/** The p-th percentile of values sorted ascending (the nearest rank below). */
export const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
