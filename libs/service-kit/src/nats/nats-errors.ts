/** JetStream's "not found": a stream (10059), a consumer (10014) or a message (10037). */
export function isNotFound(error: unknown): boolean {
  const e = error as { code?: string; api_error?: { err_code?: number }; message?: string } | null;
  return (
    e?.code === '404' ||
    e?.api_error?.err_code === 10059 ||
    e?.api_error?.err_code === 10014 ||
    e?.api_error?.err_code === 10037 ||
    /not found/i.test(e?.message ?? '')
  );
}

/**
 * JetStream (or the client, for a message over max_payload) refused the message itself: a full
 * stream, a message too large, no stream for the subject. Publishing it again does not help until
 * something changes; unlike a timeout or a lost connection, which pass when NATS is back.
 */
export function isPublishRefusal(error: unknown): boolean {
  const e = error as { api_error?: unknown; code?: unknown } | null;
  return !!e && (e.api_error !== undefined || e.code === '503' || e.code === 'MAX_PAYLOAD_EXCEEDED');
}

/** The stream (or the server's store) has no room: JetStream's 'maximum bytes/messages exceeded', 'insufficient resources'. */
export function isOutOfSpace(error: unknown): boolean {
  const api = (error as { api_error?: { err_code?: number; description?: string } } | null)?.api_error;
  if (!api) return false;
  return (
    api.err_code === 10023 ||
    (api.err_code === 10077 && /maximum (bytes|messages)/i.test(api.description ?? ''))
  );
}

/** NATS cannot be reached right now (timeouts, a closed or lost connection): every publish would fail alike. */
export function isConnectionTrouble(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    typeof code === 'string' &&
    [
      'TIMEOUT',
      'DISCONNECT',
      'CONNECTION_CLOSED',
      'CONNECTION_DRAINING',
      'CONNECTION_REFUSED',
      'CONNECTION_TIMEOUT',
    ].includes(code)
  );
}
