/** The database could not be reached or refused the connection when the store was opened. */
export class PostgresUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PostgresUnavailableError';
  }
}

/** The connection string with its password (in the URL or as a parameter) replaced by `***`. */
export function maskConnectionString(connectionString: string): string {
  let masked = connectionString;
  try {
    const url = new URL(connectionString);
    if (url.password) url.password = '***';
    masked = url.toString();
  } catch {
    // Not a URL (e.g. `host=... password=...`): fall through to the parameter masking.
  }
  return masked.replace(/(password=)[^&\s]*/gi, '$1***');
}

function errorCode(error: unknown): string | undefined {
  const e = error as { code?: unknown; errors?: { code?: unknown }[] } | null;
  if (typeof e?.code === 'string') return e.code;
  const inner = e?.errors?.find((x) => typeof x?.code === 'string');
  return inner ? String(inner.code) : undefined;
}

export function unavailable(connectionString: string, error: unknown): PostgresUnavailableError {
  const at = maskConnectionString(connectionString);
  const code = errorCode(error);
  const detail = error instanceof Error ? error.message : String(error);
  if (code === '3D000') {
    return new PostgresUnavailableError(
      `PostgreSQL at ${at} has no such database (3D000: ${detail}). Create it, or set DATABASE_URL to an existing database.`,
      { cause: error },
    );
  }
  if (code === '28P01' || code === '28000') {
    return new PostgresUnavailableError(`PostgreSQL at ${at} refused the login (${code}: ${detail}). Check the user and password in DATABASE_URL.`, {
      cause: error,
    });
  }
  const reason = code ?? (/timeout/i.test(detail) ? 'timeout' : detail);
  return new PostgresUnavailableError(`Cannot reach PostgreSQL at ${at} (${reason}). Is the server running and reachable? Set DATABASE_URL to point at it.`, {
    cause: error,
  });
}
