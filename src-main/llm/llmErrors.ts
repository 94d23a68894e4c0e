import { AppError, PorticoError } from '../base/errors.ts';
import { providerNameList } from './providers.ts';

/** 422: the id names no provider Portico knows. */
export class UnknownModelError extends AppError {
  constructor(modelId: string) {
    super(422, `Unknown model '${modelId}': use provider:model with provider ${providerNameList()}`);
  }
}

/** 422: the model's provider has no key (or, for openai-compatible, no base URL). */
export class ModelNotConfiguredError extends AppError {
  constructor(modelId: string, missing: string) {
    super(422, `Model '${modelId}' is not configured: ${missing}`);
  }
}

/** A model call that failed after the SDK's retries; the message never carries request content. */
export class LlmCallError extends PorticoError {
  constructor(modelId: string, cause: unknown) {
    super(`The model '${modelId}' could not be reached: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
  }
}
