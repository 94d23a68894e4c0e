// Whether the filler may click a submit button again after a submission it saw answered (docs/autofill.md,
// "The submitted form still shows"). Pure: the wizard passes what it saw, this decides.

/** What the wizard knows when it is about to read a page or click a submit button. */
export interface AfterSubmission {
  /**
   * The controls (`controlKey`, plan.ts) of the form whose submit click sent a request carrying placed values
   * that the server answered 2xx/3xx; null when the last click had no such answer.
   */
  answered: ReadonlySet<string> | null;
  /** The controls the page shows now (`controlKey` of each target). */
  shown: readonly string[];
  /** How many errors the page shows now (validationReader.ts). */
  errors: number;
}

/**
 * `submitted`: the form went — the page shows no error and only controls of the form that was submitted (the same
 * form drawn again before its confirmation, disabled or reset for another entry): the run is over, and a submit
 * control is never clicked again (a second booking). `go on`: no answered submission, an error showing (the server
 * or the page refused something: correcting and sending again is right), a control of another step, or no control
 * at all (a confirmation or review page is read as before).
 */
export function afterSubmission({ answered, shown, errors }: AfterSubmission): 'submitted' | 'go on' {
  if (!answered || errors > 0 || shown.length === 0) return 'go on';
  return shown.every((key) => answered.has(key)) ? 'submitted' : 'go on';
}
