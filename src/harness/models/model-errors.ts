/**
 * Provider failures mapped onto a stable hierarchy, whatever the provider or SDK.
 */
import { GuardError } from '../../errors.js';

/** Which kind of provider failure a {@link ModelProviderError} is. */
export const ModelErrorKind = {
  rate_limit: 'rate_limit',
  auth: 'auth',
  context_length: 'context_length',
  invalid_response: 'invalid_response',
  network: 'network',
  provider: 'provider',
} as const;
/** Which kind of provider failure a {@link ModelProviderError} is. */
export type ModelErrorKind = (typeof ModelErrorKind)[keyof typeof ModelErrorKind];

/** What every provider error carries. */
export interface ModelProviderErrorInit {
  readonly message: string;
  readonly model?: string;
  readonly statusCode?: number;
  /** Whether the same request may succeed later. */
  readonly retryable?: boolean;
  readonly cause?: unknown;
}

/** A model provider failed; subclasses say how. `code` is `model_<kind>`. */
export class ModelProviderError extends GuardError {
  readonly kind: ModelErrorKind;
  readonly model: string | undefined;
  readonly statusCode: number | undefined;
  readonly retryable: boolean;

  constructor(init: ModelProviderErrorInit, kind: ModelErrorKind = ModelErrorKind.provider) {
    super(`model_${kind}`, init.message, { cause: init.cause });
    this.kind = kind;
    this.model = init.model;
    this.statusCode = init.statusCode;
    this.retryable = init.retryable ?? false;
  }
}

/** The provider refused for rate or quota (HTTP 429); `retryAfterMs` when it said how long to wait. */
export class ModelRateLimitError extends ModelProviderError {
  readonly retryAfterMs: number | undefined;

  constructor(init: ModelProviderErrorInit & { readonly retryAfterMs?: number }) {
    super({ retryable: true, ...init }, ModelErrorKind.rate_limit);
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** The credentials are missing, wrong or not allowed this model (HTTP 401/403). */
export class ModelAuthError extends ModelProviderError {
  constructor(init: ModelProviderErrorInit) {
    super({ ...init, retryable: false }, ModelErrorKind.auth);
  }
}

/** The request is longer than the model's context window. */
export class ModelContextLengthError extends ModelProviderError {
  constructor(init: ModelProviderErrorInit) {
    super({ ...init, retryable: false }, ModelErrorKind.context_length);
  }
}

/** The provider answered with something that cannot be read (no content, bad JSON, wrong shape). */
export class ModelInvalidResponseError extends ModelProviderError {
  constructor(init: ModelProviderErrorInit) {
    super(init, ModelErrorKind.invalid_response);
  }
}

/** The provider could not be reached, or failed on its side (HTTP 5xx, a reset connection). */
export class ModelNetworkError extends ModelProviderError {
  constructor(init: ModelProviderErrorInit) {
    super({ retryable: true, ...init }, ModelErrorKind.network);
  }
}
