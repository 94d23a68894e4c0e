import type { z } from 'zod';
import { type JsonSchemaObject as JsonSchema, jsonSchemaOf } from '../base/zodJsonSchema.ts';
import { ErrorResponse } from '../contract/common.ts';
import type { AnyRouteSpec } from './routeTable.ts';

function parametersOf(schema: z.ZodType | undefined, location: 'path' | 'query'): JsonSchema[] {
  if (!schema) return [];
  const json = jsonSchemaOf(schema, 'input');
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: location,
    required: location === 'path' || required.has(name),
    schema: property,
  }));
}

// A body the handler streams itself (archive, image, text) with no schema of its own.
const BINARY: JsonSchema = { type: 'string', format: 'binary' };

const ERROR_STATUSES: Record<string, string> = {
  '400': 'Malformed JSON',
  '401': 'Missing or invalid API key',
  '403': 'Key of another organization, wrong key kind, or not a member',
  '404': 'Not found',
  '409': 'Conflict',
  '413': 'Too large',
  '422': 'Validation failed; detail names the field and rule',
  '500': 'Internal error',
};

/** The OpenAPI 3.1 document of every registered route, from the same zod schemas that validate them. */
export function buildOpenApi(routes: readonly AnyRouteSpec[], version: string): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const errorContent = { 'application/json': { schema: jsonSchemaOf(ErrorResponse, 'output') } };
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const status = String(route.status ?? 200);
    const success: JsonSchema = { description: status === '204' ? 'No content' : 'Success' };
    if (route.response) success.content = { 'application/json': { schema: jsonSchemaOf(route.response, 'output') } };
    if (route.produces)
      success.content = {
        [route.produces.type]: {
          schema: route.produces.schema ? jsonSchemaOf(route.produces.schema, 'output') : BINARY,
        },
      };
    const operation: JsonSchema = {
      ...(route.operationId !== undefined && { operationId: route.operationId }),
      summary: route.summary,
      tags: [route.tag],
      parameters: [...parametersOf(route.params, 'path'), ...parametersOf(route.query, 'query')],
      responses: {
        [status]: success,
        ...Object.fromEntries(
          Object.entries(ERROR_STATUSES).map(([code, description]) => [code, { description, content: errorContent }]),
        ),
      },
    };
    if (route.auth === 'console') operation.security = [{ consoleToken: [] }];
    else if (route.auth === 'org') operation.security = [{ apiKey: [] }, { consoleToken: [] }];
    else if (route.auth !== 'none') operation.security = [{ apiKey: [] }];
    if (route.body)
      operation.requestBody = {
        required: true,
        content: { 'application/json': { schema: jsonSchemaOf(route.body, 'input') } },
      };
    if (route.multipart) {
      operation.requestBody = {
        required: true,
        content: {
          'multipart/form-data': {
            schema: {
              type: 'object',
              required: [route.multipart.fileField],
              properties: { [route.multipart.fileField]: { type: 'string', format: 'binary' } },
            },
          },
        },
      };
    }
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Portico', version, description: 'Local-first browser automation service' },
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        consoleToken: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Console-Token',
          description: 'The operator console token, new at every start',
        },
      },
    },
    paths,
  };
}
