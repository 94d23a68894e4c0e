import type { z } from 'zod';

/** One zod issue in the project's words: `is required`, `must be of type string`, `unknown field 'x'`, or the schema's own message. */
export function describeZodIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys')
    return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'is required';
  if (issue.code === 'invalid_type')
    return `must be ${issue.expected === 'record' ? 'an object' : `of type ${issue.expected}`}`;
  return issue.message;
}

/** Where an issue is, below `where`: `body.items[0].name`. */
export function zodIssuePath(where: string, issue: z.core.$ZodIssue): string {
  return [where, ...issue.path.map((segment) => (typeof segment === 'number' ? `[${segment}]` : String(segment)))]
    .filter(Boolean)
    .join('.')
    .replace(/\.\[/g, '[');
}

/** Every issue as `<where>.<field>: <rule>`, joined by `; ` (the 422 detail format, reused for files). */
export function describeZodIssues(where: string, issues: readonly z.core.$ZodIssue[]): string {
  return issues.map((issue) => `${zodIssuePath(where, issue) || 'value'}: ${describeZodIssue(issue)}`).join('; ');
}
