import { badRequest } from './errors.js';

// Per-company settings that later features read: chart validator levels (issue "Charts"),
// the hold period (hold tokens). Pure: parsing and applying a change, no storage.

export const CHART_VALIDATORS = [
  'VALIDATE_DUPLICATE_LABELS',
  'VALIDATE_OBJECTS_WITHOUT_CATEGORIES',
  'VALIDATE_UNLABELED_OBJECTS',
  'VALIDATE_FOCAL_POINT',
  'VALIDATE_OBJECT_TYPES_PER_CATEGORY',
  'VALIDATE_EMPTY_FLOOR',
] as const;
export type ChartValidator = (typeof CHART_VALIDATORS)[number];

export const VALIDATOR_LEVELS = ['OFF', 'WARNING', 'ERROR'] as const;
export type ValidatorLevel = (typeof VALIDATOR_LEVELS)[number];

export const MAX_HOLD_PERIOD_MINUTES = 120;

export interface CompanySettings {
  draftChartDrawingsEnabled: boolean;
  holdOnSelectForGAs: boolean;
  holdPeriodInMinutes: number;
  chartValidation: Record<ChartValidator, ValidatorLevel>;
  defaultRendererSettings: {
    showFullScreenButton: boolean;
    multiSelectEnabled: boolean;
    companionSeatValidationEnabled: boolean;
  };
}

/**
 * New companies validate nothing (as seats.io test accounts do), hold for 15 minutes and
 * have seats.io's renderer defaults (no full-screen button, no multi-select).
 */
export function defaultCompanySettings(): CompanySettings {
  return {
    draftChartDrawingsEnabled: true,
    holdOnSelectForGAs: true,
    holdPeriodInMinutes: 15,
    chartValidation: Object.fromEntries(CHART_VALIDATORS.map((v) => [v, 'OFF'])) as Record<ChartValidator, ValidatorLevel>,
    defaultRendererSettings: { showFullScreenButton: false, multiSelectEnabled: false, companionSeatValidationEnabled: true },
  };
}

/** Boolean settings by the key clients send, with where they live in CompanySettings. */
const BOOLEAN_SETTINGS: Record<string, string> = {
  DRAFT_CHART_DRAWINGS_ENABLED: 'draftChartDrawingsEnabled',
  HOLD_ON_SELECT_FOR_GAS: 'holdOnSelectForGAs',
  SHOW_FULL_SCREEN_BUTTON: 'defaultRendererSettings.showFullScreenButton',
  MULTI_SELECT_ENABLED: 'defaultRendererSettings.multiSelectEnabled',
  COMPANION_SEAT_VALIDATION_ENABLED: 'defaultRendererSettings.companionSeatValidationEnabled',
};

export const SETTING_KEYS = [...CHART_VALIDATORS, ...Object.keys(BOOLEAN_SETTINGS), 'HOLD_PERIOD_IN_MINUTES'];

/** One setting to write: a dotted path inside CompanySettings and its new value. */
export interface SettingChange {
  path: string;
  value: unknown;
}

export function validateHoldPeriod(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_HOLD_PERIOD_MINUTES) {
    throw badRequest('GENERAL_ERROR', `holdPeriodInMinutes must be a whole number from 1 to ${MAX_HOLD_PERIOD_MINUTES}`);
  }
  return value;
}

/**
 * Turns `POST /accounts/me/settings {key, value}` into the one field to write; throws 400 on
 * an unknown key or a bad value. Writing one field (not the whole settings object) keeps two
 * admins changing different settings at once from undoing each other.
 */
export function settingChange(key: string, value: unknown): SettingChange {
  if ((CHART_VALIDATORS as readonly string[]).includes(key)) {
    const level = typeof value === 'string' ? value.toUpperCase() : value;
    if (!(VALIDATOR_LEVELS as readonly unknown[]).includes(level)) {
      throw badRequest('GENERAL_ERROR', `value of ${key} must be one of ${VALIDATOR_LEVELS.join(', ')}`);
    }
    return { path: `chartValidation.${key}`, value: level };
  }
  const booleanPath = BOOLEAN_SETTINGS[key];
  if (booleanPath !== undefined) {
    const flag = value === true || value === 'true' ? true : value === false || value === 'false' ? false : undefined;
    if (flag === undefined) throw badRequest('GENERAL_ERROR', `value of ${key} must be true or false`);
    return { path: booleanPath, value: flag };
  }
  if (key === 'HOLD_PERIOD_IN_MINUTES') {
    const minutes = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
    return { path: 'holdPeriodInMinutes', value: validateHoldPeriod(minutes) };
  }
  throw badRequest('GENERAL_ERROR', `unknown setting ${key}; known settings: ${SETTING_KEYS.join(', ')}`);
}
