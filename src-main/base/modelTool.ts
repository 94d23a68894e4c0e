import { z } from 'zod';
import { PorticoError } from './errors.ts';
import { describeZodIssues } from './zodIssues.ts';
import { type JsonSchemaObject, jsonSchemaOf } from './zodJsonSchema.ts';

/**
 * A tool input a model (or an MCP client) got wrong, in words it can act on: the caller answers it as the
 * tool's error result (wrong type, missing field, no such element, no such option…), never as a crash.
 */
export class ToolInputError extends PorticoError {}

/** A tool's input as the model providers take it: an object at the top (Anthropic `input_schema`, OpenAI `parameters`, MCP `inputSchema`). */
export interface ToolInputSchema extends JsonSchemaObject {
  type: 'object';
  properties: Record<string, JsonSchemaObject>;
  required?: string[];
}

/** How a tool is written: its name, a description for the model, ONE zod input shape, and the handler of the parsed input. */
export interface ToolSpec<Shape extends z.ZodRawShape, Env, Result> {
  name: string;
  description: string;
  input: Shape;
  run(input: z.output<z.ZodObject<Shape>>, env: Env): Promise<Result>;
}

/**
 * A tool as its callers hold it, whatever its input: the model agent's page tools and the MCP tools are both
 * this. Everything about the input comes from the one zod shape: `inputSchema` (sent to the model), the
 * validation in `call`, and the handler's type.
 */
export interface ModelTool<Env, Result> {
  readonly name: string;
  readonly description: string;
  /** The zod shape itself (the MCP SDK takes it to list and check the tool). */
  readonly input: z.ZodRawShape;
  readonly inputSchema: ToolInputSchema;
  /**
   * Checks `input` against the shape, then runs the handler with the parsed value. A bad input throws a
   * {@link ToolInputError} naming each field and rule before the handler runs.
   */
  call(input: unknown, env: Env): Promise<Result>;
}

/** Leaves out what says nothing to a model: a safe-integer range, `propertyNames: {type: string}`, `additionalProperties: {}`. */
const quieter: NonNullable<z.core.JSONSchemaGeneratorParams['override']> = ({ jsonSchema }) => {
  if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
  if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
  if (JSON.stringify(jsonSchema.propertyNames) === '{"type":"string"}') delete jsonSchema.propertyNames;
  if (JSON.stringify(jsonSchema.additionalProperties) === '{}') delete jsonSchema.additionalProperties;
};

/** The JSON Schema of a tool's input object, through the same conversion as `/openapi.json`. */
export function toolInputSchema(schema: z.ZodObject): ToolInputSchema {
  const json = jsonSchemaOf(schema, 'input', quieter);
  const { type, properties, required } = json;
  if (type !== 'object' || typeof properties !== 'object' || properties === null)
    throw new TypeError('a tool input must convert to a JSON Schema object with properties');
  if (required !== undefined && !(Array.isArray(required) && required.every((key) => typeof key === 'string')))
    throw new TypeError('a tool input must convert to a JSON Schema whose required is a list of names');
  return { ...json, type, properties: properties as Record<string, JsonSchemaObject> };
}

/** Builds a tool from its spec: the input schema is converted once, the parser built once. */
export function defineModelTool<Shape extends z.ZodRawShape, Env, Result>(
  spec: ToolSpec<Shape, Env, Result>,
): ModelTool<Env, Result> {
  const schema = z.object(spec.input);
  return {
    name: spec.name,
    description: spec.description,
    input: spec.input,
    inputSchema: toolInputSchema(schema),
    async call(input, env) {
      const parsed = schema.safeParse(input, { reportInput: true });
      if (!parsed.success)
        throw new ToolInputError(`invalid input for ${spec.name}: ${describeZodIssues('', parsed.error.issues)}`);
      return spec.run(parsed.data, env);
    },
  };
}
