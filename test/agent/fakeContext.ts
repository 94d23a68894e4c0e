import type { Page } from 'playwright-core';

import type { AgentContext, AgentQuestion } from '../../src-main/agent/agentTypes.ts';
import type { JsonObject } from '../../src-main/contract/common.ts';

export interface FakeContext extends AgentContext {
  steps: Array<{ description: string; screenshot: Buffer }>;
  questions: AgentQuestion[];
  logs: string[];
}

export interface FakeOptions {
  page: Page;
  startUrl: string;
  formData: JsonObject;
  formSchema?: JsonObject;
  outputSchema?: JsonObject | null;
  /** Scripted answers, in order; with answers, human_in_the_loop is on. */
  answers?: string[];
  humanInTheLoop?: boolean;
  humanized?: (url: string) => boolean;
  maxTurns?: number;
}

/** A stand-in for the job engine's context: counts steps (with screenshots), scripts the human. */
export function fakeContext(options: FakeOptions): FakeContext {
  const answers = [...(options.answers ?? [])];
  const steps: FakeContext['steps'] = [];
  const questions: AgentQuestion[] = [];
  const logs: string[] = [];
  const maxTurns = options.maxTurns ?? 20;
  return {
    page: options.page,
    startUrl: options.startUrl,
    task: 'Fill in the form and submit it',
    formData: options.formData,
    formSchema: options.formSchema ?? { type: 'object' },
    outputSchema: options.outputSchema ?? null,
    humanInTheLoop: options.humanInTheLoop ?? answers.length > 0,
    isHumanized: options.humanized ?? (() => false),
    signal: new AbortController().signal,
    async recordStep(description) {
      if (steps.length >= maxTurns) throw new Error(`max_turns (${maxTurns}) exceeded`);
      steps.push({ description, screenshot: await options.page.screenshot() });
    },
    log: (line) => logs.push(line),
    async ask(question) {
      questions.push(question);
      const answer = answers.shift();
      if (answer === undefined) throw new Error(`unexpected question: ${question.question}`);
      return answer;
    },
    steps,
    questions,
    logs,
  };
}
