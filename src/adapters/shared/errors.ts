/**
 * Errors an adapter throws where its framework turns a thrown error into the tool result (the AI
 * SDK's `tool-error`, for one). `toString()` returns the note for the model, because that is what
 * such frameworks show it; `message` stays for the operator.
 */
import { GuardError } from '../../errors.js';
import type { GuardRefusal, ToolCallFailure, ToolCallRefusal } from './types.js';

/** A guarded tool call was refused; it did NOT happen. */
export class ToolCallRefusedError extends GuardError {
  readonly toolName: string;
  readonly toolCallId: string | undefined;
  /** The refusal: stage, stable code, notes and whether it stopped the run. */
  readonly refusal: ToolCallRefusal;
  override readonly llmMessage: string;

  constructor(toolName: string, toolCallId: string | undefined, refusal: ToolCallRefusal) {
    const cause = refusal.error;
    super(
      'tool_call_refused',
      `Call \`${toolCallId ?? '?'}\` to \`${toolName}\` refused at ${refusal.stage} (\`${refusal.code}\`): ${refusal.reason}`,
      cause === undefined ? { llmMessage: refusal.message } : { llmMessage: refusal.message, cause },
    );
    this.toolName = toolName;
    this.toolCallId = toolCallId;
    this.refusal = refusal;
    this.llmMessage = refusal.message;
  }

  /** The note for the model. */
  override toString(): string {
    return this.llmMessage;
  }
}

/** A guarded tool call failed in a way a guard explained (an output that failed validation). */
export class ToolCallFailedError extends GuardError {
  readonly toolName: string;
  readonly toolCallId: string | undefined;
  /** True when the body ran, so its effect may have happened. */
  readonly executed: boolean;
  override readonly llmMessage: string;

  constructor(toolName: string, toolCallId: string | undefined, failure: ToolCallFailure) {
    super(
      'tool_call_failed',
      `Call \`${toolCallId ?? '?'}\` to \`${toolName}\` failed: ${failure.error instanceof Error ? failure.error.message : String(failure.error)}`,
      { llmMessage: failure.message, cause: failure.error },
    );
    this.toolName = toolName;
    this.toolCallId = toolCallId;
    this.executed = failure.executed;
    this.llmMessage = failure.message;
  }

  /** The note for the model. */
  override toString(): string {
    return this.llmMessage;
  }
}

/** A model call was refused before it was sent (budget pre-flight, stopped run). */
export class ModelCallRefusedError extends GuardError {
  readonly model: string;
  readonly refusal: GuardRefusal;
  override readonly llmMessage: string;

  constructor(model: string, refusal: GuardRefusal) {
    super('model_call_refused', `Model call to \`${model}\` refused (\`${refusal.code}\`): ${refusal.reason}`, {
      llmMessage: refusal.message,
    });
    this.model = model;
    this.refusal = refusal;
    this.llmMessage = refusal.message;
  }
}
