// The bench's command line checked before anything starts: an option it does not know (a typo,
// `--help` on an older copy) would otherwise be ignored and a full run sent instead of what was
// asked for.

export interface ArgumentSpec {
  /** Options that stand alone. */
  flags: readonly string[];
  /** Options followed by a value. */
  valued: readonly string[];
  /** Options that may be followed by a value. */
  optionallyValued: readonly string[];
}

/** What is wrong with `args`, in one line; undefined when nothing is. */
export function argumentError(args: readonly string[], spec: ArgumentSpec): string | undefined {
  const known = [...spec.flags, ...spec.valued, ...spec.optionallyValued];
  // A value may itself start with `--` (`--node-flags "--max-semi-space-size=64"`), but is no option's name.
  const hasValue = (i: number) => i + 1 < args.length && !known.includes(args[i + 1]!);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (spec.flags.includes(arg)) continue;
    if (spec.valued.includes(arg)) {
      if (!hasValue(i)) return `${arg} needs a value`;
      i++;
    } else if (spec.optionallyValued.includes(arg)) {
      if (hasValue(i)) i++;
    } else return arg.startsWith('-') ? `unknown option ${arg}` : `unexpected argument ${arg}`;
  }
  return undefined;
}
