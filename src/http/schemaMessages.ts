// Messages for bodies that break a route's JSON schema, worded the way seats.io words them
// (docs/seatsio-behaviour.md, "Errors"): `#/events: expected minimum item count: 1, found: 0`.
// Clients show these texts to their users, so the wording is part of the contract. Pure:
// from the validator's errors (TypeBox, Ajv-style keyword and params) and the body.

export interface SchemaError {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  params: Record<string, unknown>;
  message: string;
}

const TYPE_NAMES: Record<string, string> = {
  string: 'String',
  integer: 'Integer',
  number: 'Number',
  boolean: 'Boolean',
  object: 'JSONObject',
  array: 'JSONArray',
  null: 'Null',
};

/** The value at a JSON pointer (`/events/0`) of the body. */
function valueAt(body: unknown, pointer: string): unknown {
  let value = body;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** The name seats.io gives a JSON value's type. */
function typeName(value: unknown): string {
  if (value === null) return 'Null';
  if (Array.isArray(value)) return 'JSONArray';
  if (typeof value === 'number') return Number.isInteger(value) ? 'Integer' : 'BigDecimal';
  if (typeof value === 'object') return 'JSONObject';
  return TYPE_NAMES[typeof value] ?? typeof value;
}

const sizeOf = (value: unknown) => (typeof value === 'string' ? [...value].length : Array.isArray(value) ? value.length : 0);
const keyCount = (value: unknown) => (value !== null && typeof value === 'object' ? Object.keys(value).length : 0);
const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** One error as seats.io words it; some (required, additional properties) name several keys. */
function worded(error: SchemaError, body: unknown): string[] {
  const path = `#${error.instancePath}`;
  const actual = valueAt(body, error.instancePath);
  const limit = error.params.limit;
  switch (error.keyword) {
    case 'required':
      return (error.params.requiredProperties as string[]).map((key) => `${path}: required key [${key}] not found`);
    case 'additionalProperties':
      return (error.params.additionalProperties as string[]).map((key) => `${path}: extraneous key [${key}] is not permitted`);
    case 'type':
      return [`${path}: expected type: ${TYPE_NAMES[String(error.params.type)] ?? error.params.type}, found: ${typeName(actual)}`];
    case 'minItems':
      return [`${path}: expected minimum item count: ${limit}, found: ${sizeOf(actual)}`];
    case 'maxItems':
      return [`${path}: expected maximum item count: ${limit}, found: ${sizeOf(actual)}`];
    case 'minLength':
      return [`${path}: expected minLength: ${limit}, actual: ${sizeOf(actual)}`];
    case 'maxLength':
      return [`${path}: expected maxLength: ${limit}, actual: ${sizeOf(actual)}`];
    case 'minimum':
      return [`${path}: ${shown(actual)} is not greater or equal to ${limit}`];
    case 'exclusiveMinimum':
      return [`${path}: ${shown(actual)} is not greater than ${limit}`];
    case 'maximum':
      return [`${path}: ${shown(actual)} is not less or equal to ${limit}`];
    case 'exclusiveMaximum':
      return [`${path}: ${shown(actual)} is not less than ${limit}`];
    case 'minProperties':
      return [`${path}: minimum size: [${limit}], found: [${keyCount(actual)}]`];
    case 'maxProperties':
      return [`${path}: maximum size: [${limit}], found: [${keyCount(actual)}]`];
    case 'const':
    case 'enum':
      return [`${path}: ${shown(actual)} is not a valid enum value`];
    case 'pattern':
      return [`${path}: string [${shown(actual)}] does not match pattern ${error.params.pattern}`];
    default:
      return [`${path}: ${error.message}`];
  }
}

/**
 * Every problem of the body, one message each. A value matching none of a union's types is
 * one message (`expected type: one of [String, Null], found: Integer`), not one per type.
 */
export function schemaMessages(errors: SchemaError[], body: unknown): string[] {
  const unions = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const inUnion = (e: SchemaError) => unions.some((u) => e !== u && e.schemaPath.startsWith(`${u.schemaPath}/${u.keyword}/`));
  const messages: string[] = [];
  for (const error of errors) {
    if (error.keyword === 'boolean' || inUnion(error)) continue; // `additionalProperties: false` says it too
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf') {
      const branches = errors.filter((e) => e.schemaPath.startsWith(`${error.schemaPath}/${error.keyword}/`));
      const here = branches.length > 0 && branches.every((b) => b.instancePath === error.instancePath);
      if (here && branches.every((b) => b.keyword === 'const')) {
        messages.push(`#${error.instancePath}: ${shown(valueAt(body, error.instancePath))} is not a valid enum value`);
      } else if (here && branches.every((b) => b.keyword === 'type')) {
        const types = branches.map((b) => TYPE_NAMES[String(b.params.type)] ?? String(b.params.type));
        messages.push(`#${error.instancePath}: expected type: one of [${types.join(', ')}], found: ${typeName(valueAt(body, error.instancePath))}`);
      } else {
        const total = new Set(branches.map((b) => b.schemaPath.slice(error.schemaPath.length).split('/')[2])).size;
        messages.push(`#${error.instancePath}: #: no subschema matched out of the total ${total} subschemas`);
      }
      continue;
    }
    messages.push(...worded(error, body));
  }
  return messages;
}
