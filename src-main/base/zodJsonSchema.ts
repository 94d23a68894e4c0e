import { z } from 'zod';

export type JsonSchemaObject = Record<string, unknown>;

/**
 * The JSON Schema (2020-12) of a zod schema, as its input (`io: 'input'`: what a caller may send, defaults
 * optional) or its output: the one conversion behind `/openapi.json` and the model tools' input schemas.
 * No `$schema` (the OpenAPI document and the model providers name the dialect themselves); what JSON Schema
 * cannot say (a transform's input) becomes `{}`. `override` may adjust each generated schema in place.
 */
export function jsonSchemaOf(
  schema: z.ZodType,
  io: 'input' | 'output',
  override?: z.core.JSONSchemaGeneratorParams['override'],
): JsonSchemaObject {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
    ...(override && { override }),
  }) as JsonSchemaObject;
  return rest;
}
