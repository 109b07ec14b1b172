/**
 * The DPM request bodies as the sandbox decodes them, from the API's one description (contracts/dpm.openapi.yaml,
 * copied into wire.generated.ts by `npm run contracts`): each JSON Schema becomes a shape of the serde imitation
 * (../http/serde.ts), which refuses a body with the real server's texts. What the document says, the decoder
 * reads as the Rust server declares it:
 * - `title` is the Rust type's name (`expected struct OnboardingRequest`);
 * - `format` int32 / int64 / uint16 / uint32 is the integer's width (i32, i64, u16, u32);
 * - `additionalProperties: false` is `deny_unknown_fields`; a property not `required` is an `Option` (null or
 *   absent); `oneOf` + `discriminator` is an internally tagged enum; a `title`d `enum` a fieldless one;
 * - `CantonIdInRequest` is a Canton id, parsed as the server parses it.
 */
import { S, type Shape } from '../http/serde.js';
import { requestBodyOf, requestComponents } from './wire.generated.js';

interface Schema {
  $ref?: string;
  title?: string;
  type?: string | string[];
  format?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  discriminator?: { propertyName: string };
  enum?: unknown[];
  const?: unknown;
}

const INTEGER_WIDTHS: Record<string, Extract<Shape, { type: 'int' }>> = {
  int32: S.i32,
  int64: S.i64,
  uint16: S.u16,
  uint32: S.u32,
};

const COMPONENT = '#/components/schemas/';
const byComponent = new Map<string, Shape>();

function componentShape(name: string): Shape {
  let shape = byComponent.get(name);
  if (shape === undefined) {
    const schema = requestComponents[name] as Schema | undefined;
    if (schema === undefined) throw new Error(`the DPM document has no request component ${name}`);
    // a component may name itself (FieldDefinition): the shape is built on first use
    shape = S.lazy(() => resolvedShape(name, schema));
    byComponent.set(name, shape);
  }
  return shape;
}

const built = new Map<string, Shape>();
function resolvedShape(name: string, schema: Schema): Shape {
  let shape = built.get(name);
  if (shape === undefined) {
    shape = shapeOf(schema);
    built.set(name, shape);
  }
  return shape;
}

const isNull = (schema: Schema): boolean => schema.type === 'null';

function fieldsOf(schema: Schema, without?: string): Record<string, Shape> {
  const required = new Set(schema.required ?? []);
  const fields: Record<string, Shape> = {};
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (name === without) continue;
    const shape = shapeOf(property);
    fields[name] = required.has(name) || shape.type === 'option' ? shape : S.option(shape);
  }
  return fields;
}

/** The decoder's shape of one schema of the document. */
export function shapeOf(schema: Schema): Shape {
  if (schema.$ref !== undefined) {
    const name = schema.$ref.slice(COMPONENT.length);
    return name === 'CantonIdInRequest' ? S.cantonId : componentShape(name);
  }
  if (schema.anyOf !== undefined) {
    const value = schema.anyOf.filter((branch) => !isNull(branch));
    if (value.length !== 1 || value.length === schema.anyOf.length) throw new Error('unsupported anyOf');
    return S.option(shapeOf(value[0]!));
  }
  if (Array.isArray(schema.type)) {
    const [type, ...more] = schema.type.filter((t) => t !== 'null');
    if (type === undefined || more.length > 0) throw new Error(`unsupported type ${schema.type.join('|')}`);
    const inner = shapeOf({ ...schema, type });
    return schema.type.includes('null') ? S.option(inner) : inner;
  }
  if (schema.oneOf !== undefined && schema.discriminator !== undefined) {
    const tag = schema.discriminator.propertyName;
    const variants: Record<string, Record<string, Shape> | null> = {};
    for (const variant of schema.oneOf) {
      const fields = fieldsOf(variant, tag);
      variants[String(variant.properties?.[tag]?.const)] = Object.keys(fields).length > 0 ? fields : null;
    }
    return S.tagged(schema.title ?? 'enum', variants, tag);
  }
  if (schema.enum !== undefined) {
    const values = schema.enum.filter((value) => value !== null).map(String);
    const shape = S.unitEnum(schema.title ?? 'enum', values);
    return schema.enum.includes(null) ? S.option(shape) : shape;
  }
  switch (schema.type) {
    case undefined:
      return S.any;
    case 'string':
      return S.string;
    case 'boolean':
      return S.bool;
    case 'integer':
      return INTEGER_WIDTHS[schema.format ?? 'int64'] ?? S.i64;
    case 'array':
      return S.vec(schema.items === undefined ? S.any : shapeOf(schema.items));
    case 'object':
      return S.struct(schema.title ?? 'object', fieldsOf(schema), schema.additionalProperties === false);
    default:
      throw new Error(`unsupported type ${schema.type}`);
  }
}

/** The decoder's shape of the request body of a route (`POST /onboarding`), from the document. */
export function requestShape(route: string): Shape {
  const component = requestBodyOf[route];
  if (component === undefined) throw new Error(`the DPM document has no request body for ${route}`);
  return componentShape(component);
}
