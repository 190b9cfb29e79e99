/**
 * Errors of the receipt chain.
 */
import { GuardError, type GuardErrorOptions } from '../../errors.js';

/** A signing or verification key that cannot be used (wrong type, too short, no key id). */
export class ReceiptKeyError extends GuardError {
  constructor(message: string, options: GuardErrorOptions = {}) {
    super('receipt_key_invalid', message, options);
  }
}

/** A receipt sink holds data that cannot be trusted (a torn or unparseable line, a broken row); nothing is appended. */
export class ReceiptSinkCorruptError extends GuardError {
  readonly location: string;

  constructor(location: string, reason: string, options: GuardErrorOptions = {}) {
    super('receipt_sink_corrupt', `Receipt sink \`${location}\` cannot be trusted: ${reason}`, options);
    this.location = location;
  }
}

/** A receipt sink could not be reached, opened or locked; nothing was appended. */
export class ReceiptSinkUnavailableError extends GuardError {
  readonly location: string;

  constructor(location: string, reason: string, options: GuardErrorOptions = {}) {
    super('receipt_sink_unavailable', `Receipt sink \`${location}\` is unavailable: ${reason}`, options);
    this.location = location;
  }
}
