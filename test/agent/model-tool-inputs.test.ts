// tier: unit
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AGENT_TOOLS, type ToolEnv } from '../../src-main/agent/model/tools/index.js';
import { agentTool, Text } from '../../src-main/agent/model/tools/toolTypes.js';
import { JsonSchemaCompiler } from '../../src-main/base/jsonSchema.js';
import { type ModelTool, ToolInputError } from '../../src-main/base/modelTool.js';
import { porticoTools, type ToolContext } from '../../src-main/mcp/tools.js';

// One shape for both kinds of tool: the model agent's page tools and the MCP server's tools.
const tools: ModelTool<never, unknown>[] = [...AGENT_TOOLS.values(), ...porticoTools];

/** An env whose every use fails loudly: a handler that ran on a bad input would say so here. */
const untouchable = new Proxy(
  {},
  {
    get(_target, key) {
      throw new Error(`the handler ran and read env.${String(key)}`);
    },
  },
) as never;

/** What anthropicClient.ts and openaiClient.ts send: `{ type: 'object', ...inputSchema }`. */
const asProvidersSendIt = (schema: Record<string, unknown>) => ({ type: 'object', ...schema });

/** A value no property of any tool takes (not a string, number, boolean, object or list of strings). */
const WRONG = [[]];

async function refusal(tool: ModelTool<never, unknown>, input: unknown): Promise<ToolInputError> {
  const outcome = await tool.call(input, untouchable).then(
    () => new Error(`${tool.name} accepted ${JSON.stringify(input)}`),
    (error: unknown) => error,
  );
  if (!(outcome instanceof ToolInputError))
    throw new Error(`${tool.name} with ${JSON.stringify(input)}: expected a ToolInputError, got ${String(outcome)}`);
  return outcome;
}

describe('tool inputs: one zod shape gives the schema the providers take, the check, and the handler type', () => {
  it('every tool name is unique across the agent and MCP', () => {
    const names = tools.map((tool) => tool.name);
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
  });

  it.each(tools.map((tool) => [tool.name, tool] as const))(
    '%s: an object at the top with properties and required names, no $schema, valid JSON Schema',
    (_name, tool) => {
      const schema = tool.inputSchema;
      expect(schema.type).toBe('object');
      expect(schema.properties).toBeTypeOf('object');
      expect(Object.keys(schema.properties)).toEqual(Object.keys(tool.input));
      for (const key of schema.required ?? []) expect(Object.keys(schema.properties)).toContain(key);
      // Anthropic refuses these at the top of input_schema; `$schema` is not theirs to read.
      for (const keyword of ['$schema', 'anyOf', 'oneOf', 'allOf', 'not', 'enum', '$ref'])
        expect(Object.keys(schema)).not.toContain(keyword);
      expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
      // The shapes the SDKs type, without the providers' `{ type: 'object', ...schema }` changing anything.
      const anthropic = {
        name: tool.name,
        description: tool.description,
        input_schema: schema,
      } satisfies Anthropic.Tool;
      const openai = {
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: schema },
      } satisfies OpenAI.Chat.Completions.ChatCompletionTool;
      expect(asProvidersSendIt(anthropic.input_schema)).toEqual(openai.function.parameters);
      new JsonSchemaCompiler().compileObjectSchema(schema, tool.name);
    },
  );

  it('the schemas read as before: an integer index with its meaning, required names, enums, an object result', () => {
    const schema = (name: string) => AGENT_TOOLS.get(name)?.inputSchema;
    expect(schema('click')).toEqual({
      type: 'object',
      properties: { index: { type: 'integer', description: 'The [index] of the element in the current listing' } },
      required: ['index'],
    });
    expect(schema('type')?.properties.text).toEqual({ type: 'string' });
    expect(schema('scroll')?.properties.direction).toEqual({ type: 'string', enum: ['up', 'down'] });
    expect(schema('wait')).toEqual({
      type: 'object',
      properties: { seconds: { type: 'number', minimum: 0.1, maximum: 10 } },
    });
    expect(schema('done')).toEqual({
      type: 'object',
      properties: { result: { type: 'object' } },
      required: ['result'],
    });
    expect(schema('extract')).toEqual({ type: 'object', properties: {} });
  });

  it.each(tools.filter((tool) => Object.keys(tool.input).length > 0).map((tool) => [tool.name, tool] as const))(
    '%s: a malformed input is refused before the handler runs, naming each field',
    async (_name, tool) => {
      const keys = Object.keys(tool.input);
      const error = await refusal(tool, Object.fromEntries(keys.map((key) => [key, WRONG])));
      expect(error.message.startsWith(`invalid input for ${tool.name}: `)).toBe(true);
      for (const key of keys) expect(error.message).toMatch(new RegExp(`(^|; |: )${key}(\\[\\d+\\])?: `));
      // The JSON Schema the model was given refuses it too.
      const validate = new JsonSchemaCompiler().compileObjectSchema(tool.inputSchema, tool.name);
      expect(validate(Object.fromEntries(keys.map((key) => [key, WRONG])))).toBe(false);
      // Not an object at all.
      expect((await refusal(tool, 'click the button')).message).toBe(
        `invalid input for ${tool.name}: value: must be of type object`,
      );
    },
  );

  it('the messages a model reads: which field, and what it must be', async () => {
    const tool = (name: string) => AGENT_TOOLS.get(name) as ModelTool<never, unknown>;
    expect((await refusal(tool('click'), { index: '4' })).message).toBe(
      'invalid input for click: index: must be of type number',
    );
    expect((await refusal(tool('click'), { index: 1.5 })).message).toBe(
      'invalid input for click: index: must be of type int',
    );
    expect((await refusal(tool('type'), {})).message).toBe(
      'invalid input for type: index: is required; text: is required',
    );
    expect((await refusal(tool('scroll'), { direction: 'left' })).message).toMatch(
      /^invalid input for scroll: direction: .*"up".*"down"/,
    );
    expect((await refusal(tool('done'), { result: 'finished' })).message).toBe(
      'invalid input for done: result: must be an object',
    );
    expect((await refusal(tool('wait'), { seconds: 60 })).message).toMatch(/^invalid input for wait: seconds: .*10/);
    // What the OpenAI client hands over when a model's arguments were not JSON.
    expect((await refusal(tool('navigate'), { _unparsed: '{"url": ' })).message).toBe(
      'invalid input for navigate: url: is required',
    );
    const mcp = porticoTools.find((t) => t.name === 'cancel_job') as ModelTool<never, unknown>;
    expect((await refusal(mcp, { endpoint_name: 'signup', job_id: 'nope' })).message).toMatch(
      /^invalid input for cancel_job: job_id: /,
    );
  });

  it('the handler gets the parsed input, typed: a number sent as text arrives as its digits, unknown fields dropped', async () => {
    const seen: unknown[] = [];
    const probe = agentTool({
      name: 'probe',
      description: 'test',
      input: { text: Text, count: z.number().int().optional() },
      changesPage: false,
      async run(input) {
        const text: string = input.text;
        const count: number | undefined = input.count;
        // @ts-expect-error the input has no such field
        void input.other;
        seen.push({ text, count, keys: Object.keys(input) });
        return { output: 'ok' };
      },
    });
    await probe.call({ text: 12345, extra: true }, {} as ToolEnv);
    expect(seen).toEqual([{ text: '12345', count: undefined, keys: ['text'] }]);
  });

  it('an MCP tool and an agent tool are the same kind of object, with one field of their own each', () => {
    const listPortals: ModelTool<ToolContext, unknown> | undefined = porticoTools.find(
      (t) => t.name === 'list_portals',
    );
    expect(Object.keys(listPortals ?? {}).sort()).toEqual(
      ['audience', 'call', 'description', 'input', 'inputSchema', 'name'].sort(),
    );
    expect(Object.keys(AGENT_TOOLS.get('click') ?? {}).sort()).toEqual(
      ['call', 'changesPage', 'description', 'input', 'inputSchema', 'name'].sort(),
    );
  });
});
