/**
 * An error as the command line prints it: its message and the causes that say more, never a stack.
 */

function messageOf(error: unknown): string {
  if (error instanceof AggregateError && error.message === '' && error.errors.length > 0) {
    return error.errors.map(messageOf).join('; ');
  }
  if (error instanceof Error) return error.message === '' ? error.name : error.message;
  return String(error);
}

/**
 * The error's message followed by each cause's that it does not already contain
 * (`Storage unavailable (connect ECONNREFUSED 127.0.0.1:5432)`).
 */
export function describeError(error: unknown): string {
  let text = messageOf(error);
  let cause = error instanceof Error ? error.cause : undefined;
  for (let depth = 0; cause !== undefined && cause !== null && depth < 4; depth++) {
    const said = messageOf(cause);
    if (said !== '' && !text.includes(said)) text = `${text} (${said})`;
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return text;
}
