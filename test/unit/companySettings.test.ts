import { describe, expect, it } from 'vitest';
import { defaultCompanySettings, settingChange } from '../../src/domain/companySettings.js';
import { basicUser } from '../../src/http/auth.js';

describe('settingChange', () => {
  it('maps validator levels, booleans and the hold period to one field', () => {
    expect(settingChange('VALIDATE_FOCAL_POINT', 'warning')).toEqual({ path: 'chartValidation.VALIDATE_FOCAL_POINT', value: 'WARNING' });
    expect(settingChange('DRAFT_CHART_DRAWINGS_ENABLED', false)).toEqual({ path: 'draftChartDrawingsEnabled', value: false });
    expect(settingChange('HOLD_PERIOD_IN_MINUTES', '30')).toEqual({ path: 'holdPeriodInMinutes', value: 30 });
  });

  it.each([
    ['VALIDATE_FOCAL_POINT', 'LOUD'],
    ['DRAFT_CHART_DRAWINGS_ENABLED', 'maybe'],
    ['HOLD_PERIOD_IN_MINUTES', 0],
    ['HOLD_PERIOD_IN_MINUTES', 121],
    ['NO_SUCH_SETTING', true],
  ])('rejects %s = %o with a 400', (key, value) => {
    expect(() => settingChange(key, value)).toThrow(expect.objectContaining({ status: 400 }));
  });

  it('starts new companies with every validator off and a 15 minute hold period', () => {
    const settings = defaultCompanySettings();
    expect(Object.values(settings.chartValidation).every((level) => level === 'OFF')).toBe(true);
    expect(settings.holdPeriodInMinutes).toBe(15);
  });
});

describe('basicUser', () => {
  const header = (s: string) => 'Basic ' + Buffer.from(s).toString('base64');
  it('takes the user name and ignores the password', () => {
    expect(basicUser(header('key1:'))).toBe('key1');
    expect(basicUser(header('key1:whatever'))).toBe('key1');
    expect(basicUser(header('key1'))).toBe('key1');
  });
  it('rejects other schemes and empty users', () => {
    expect(basicUser('Bearer abc')).toBeUndefined();
    expect(basicUser(header(':password'))).toBeUndefined();
    expect(basicUser('')).toBeUndefined();
  });
});
