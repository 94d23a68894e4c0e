import type { ElementDescriptor, PageElement } from '../pageState.ts';
import type { ValueSource } from '../secretValues.ts';

/** One recorded action: what was done, to which element (by robust descriptor), with which value source. */
export interface TraceStep {
  /** The page's path when the action ran (replay checks it still matches). */
  path: string;
  action: 'click' | 'type' | 'select' | 'check' | 'press_key' | 'navigate' | 'upload_file' | 'click_at' | 'done';
  target?: ElementDescriptor;
  value?: ValueSource;
  key?: string;
  url?: string;
  x?: number;
  y?: number;
}

/** The replay cache entry of one portal. */
export interface ReplayTrace {
  version: 1;
  /** start_url, task and the form_data key names: a trace only replays for the same job shape. */
  key: string;
  steps: TraceStep[];
}

export type RecordInput = Omit<TraceStep, 'path' | 'target'> & { target?: PageElement };

/** Collects the steps of this run as they happen. */
export class TraceRecorder {
  readonly steps: TraceStep[] = [];
  readonly #path: () => string;

  constructor(path: () => string) {
    this.#path = path;
  }

  record(step: RecordInput): void {
    const { target, ...rest } = step;
    const descriptor: ElementDescriptor | undefined = target && {
      role: target.role,
      name: target.name,
      tag: target.tag,
      type: target.type,
      id: target.id,
      nameAttr: target.nameAttr,
      testId: target.testId,
      placeholder: target.placeholder,
    };
    this.steps.push({ path: this.#path(), ...rest, ...(descriptor && { target: descriptor }) });
  }
}
