import type { AgentContext } from '../agentTypes.ts';
import { describeElements, type PageState } from './pageState.ts';
import type { SecretValues } from './secretValues.ts';
import type { SkillSummary } from './skillLibrary.ts';

/** The system prompt: role, rules, the task and its data (secrets as placeholders), attached skills. */
export function systemPrompt(ctx: AgentContext, secrets: SecretValues, skills: SkillSummary[]): string {
  const lines = [
    "You are Portico's browser agent. You complete a task in a real browser by calling tools.",
    'Each turn you get the page as a numbered list of interactive elements plus a screenshot. Refer to elements by their [index] from the latest listing only.',
    'Call several tools in one turn when they are independent (e.g. fill every field of a form), and end the turn with the one action that changes the page (a click on Next/Submit).',
    'Secrets appear as placeholders such as {{form_data.password}} or {{credential:<id>.password}}: pass the placeholder as-is to type/use_credential; the real value is filled in locally and you never see it.',
    'When data is missing or a choice is ambiguous, call ask_human. When the task is complete, call done with the result; when it cannot be completed, call fail with the reason.',
    '',
    `Task: ${ctx.task}`,
    `Start URL: ${ctx.startUrl}`,
    `form_schema: ${JSON.stringify(ctx.formSchema)}`,
    `form_data: ${JSON.stringify(secrets.forModel())}`,
    `output_schema: ${ctx.outputSchema ? JSON.stringify(ctx.outputSchema) : 'none (return a short summary object)'}`,
  ];
  const credential = ctx.credential;
  if (credential) {
    lines.push(
      '',
      `Stored credential for ${credential.serviceName}: credential_id ${credential.id}${credential.username ? `, username ${credential.username}` : ''}.` +
        `${credential.hasPassword ? ' Type its password with use_credential.' : ''}${credential.hasTotp ? ' Type its one-time code with totp_code.' : ''}`,
    );
  }
  if (skills.length > 0) {
    lines.push('', 'Skills attached to this portal (read one with read_skill when it applies):');
    for (const skill of skills) lines.push(`- ${skill.name}: ${skill.description}`);
  }
  return secrets.redact(lines.join('\n'));
}

/** The per-turn text: where the browser is and what it offers. */
export function turnText(turn: number, state: PageState, note: string | undefined): string {
  return [
    ...(note ? [note] : []),
    `Turn ${turn}. URL: ${state.url}`,
    `Title: ${state.title}`,
    'Interactive elements:',
    describeElements(state.elements) || '(none)',
    `Visible text: ${state.text}`,
  ].join('\n');
}
