import { describe, expect, it } from 'vitest';
import { argumentError, type ArgumentSpec } from '../../bench/lib/cliArguments.js';

const spec: ArgumentSpec = { flags: ['--quick'], valued: ['--only', '--rate', '--node-flags'], optionallyValued: ['--cleanup'] };

describe("the bench's command line", () => {
  it('takes flags, options with their values and an option whose value may be left out', () => {
    expect(argumentError([], spec)).toBeUndefined();
    expect(argumentError(['--quick', '--only', 'book2', '--rate', '100'], spec)).toBeUndefined();
    expect(argumentError(['--cleanup'], spec)).toBeUndefined();
    expect(argumentError(['--cleanup', 'run-1', '--quick'], spec)).toBeUndefined();
    expect(argumentError(['--node-flags', '--max-semi-space-size=64', '--quick'], spec)).toBeUndefined();
  });

  it('names an option it does not know, a value missing and a stray argument', () => {
    expect(argumentError(['--quick', '--hepl'], spec)).toBe('unknown option --hepl');
    expect(argumentError(['--only', '--quick'], spec)).toBe('--only needs a value');
    expect(argumentError(['--rate'], spec)).toBe('--rate needs a value');
    expect(argumentError(['--quick', 'book2'], spec)).toBe('unexpected argument book2');
  });
});
