import { PorticoError } from '../../base/errors.ts';

/** A piece of action text: literal characters or a `{{name}}` reference, kept apart until the values arrive. */
export type TemplatePart = { text: string } | { variable: string };

/** Text with `{{variable}}` references, parsed once; values are filled in only when the action runs. */
export type Template = readonly TemplatePart[];

const NAME_START = /[A-Za-z_]/;
const NAME_CHAR = /[A-Za-z0-9_.-]/;
/** Longer names are refused: a reference is a short identifier, not a place to hide text. */
export const MAX_VARIABLE_NAME = 100;

/** The action could not be read as written (a broken `{{…}}`); `message` is shown to the caller. */
export class ActionSyntaxError extends PorticoError {
  constructor(message: string) {
    super(message);
  }
}

/** A `{{name}}` the request's `variables` did not supply. */
export class MissingVariableError extends PorticoError {
  readonly variable: string;

  constructor(variable: string) {
    super(`variable '${variable}' is not in variables`);
    this.variable = variable;
  }
}

/** Splits text into literals and `{{name}}` references in one pass; a `{{` that is not a well-formed reference is an error, never typed as is. */
export function parseTemplate(text: string, offset = 0): Template {
  const parts: TemplatePart[] = [];
  let literal = '';
  let i = 0;
  while (i < text.length) {
    if (text.startsWith('{{', i)) {
      let j = i + 2;
      while (j < text.length && text[j] === ' ') j += 1;
      const nameStart = j;
      if (j < text.length && NAME_START.test(text[j] ?? '')) {
        j += 1;
        while (j < text.length && j - nameStart < MAX_VARIABLE_NAME && NAME_CHAR.test(text[j] ?? '')) j += 1;
      }
      const name = text.slice(nameStart, j);
      while (j < text.length && text[j] === ' ') j += 1;
      if (name.length === 0 || !text.startsWith('}}', j)) {
        throw new ActionSyntaxError(
          `unreadable variable reference at character ${offset + i + 1}: write {{name}} with letters, digits, '_', '.' or '-'`,
        );
      }
      if (literal) parts.push({ text: literal });
      literal = '';
      parts.push({ variable: name });
      i = j + 2;
      continue;
    }
    literal += text[i];
    i += 1;
  }
  if (literal) parts.push({ text: literal });
  return parts;
}

/** The names a template refers to, each once, in order of appearance. */
export function templateVariables(template: Template): string[] {
  const names = new Set<string>();
  for (const part of template) if ('variable' in part) names.add(part.variable);
  return [...names];
}

/** The template with values filled in; a missing variable throws MissingVariableError. */
export function renderTemplate(template: Template, variables: Readonly<Record<string, string>>): string {
  let out = '';
  for (const part of template) {
    if ('text' in part) {
      out += part.text;
      continue;
    }
    const value = Object.hasOwn(variables, part.variable) ? variables[part.variable] : undefined;
    if (value === undefined) throw new MissingVariableError(part.variable);
    out += value;
  }
  return out;
}

/** The template written back as text, references as `{{name}}`: what the cache stores (never a value). */
export function templateSource(template: Template): string {
  return template.map((part) => ('text' in part ? part.text : `{{${part.variable}}}`)).join('');
}

/** Joins templates with a separator between them (words of a target that were split by spaces). */
export function joinTemplates(templates: readonly Template[], separator: string): Template {
  const out: TemplatePart[] = [];
  templates.forEach((template, index) => {
    if (index > 0 && separator) out.push({ text: separator });
    out.push(...template);
  });
  return out;
}
