/** Query parameters that carry secrets when a client puts them in the URL by mistake. */
const SECRET_PARAMETER =
  /^(api[_-]?key|apikey|key|token|access[_-]?token|id[_-]?token|refresh[_-]?token|secret|client[_-]?secret|password|passwd|auth|authorization|bearer|signature|sig)$/i;
/** A Rewind API key anywhere in the URL (a path segment, an unexpected parameter). */
const REWIND_KEY = /rwd_[0-9a-f]{12}_[A-Za-z0-9_-]+/g;

/**
 * The URL as the access log may show it: the values of secret-looking query parameters
 * (`?api_key=`, `?token=`, …) and anything shaped like a Rewind API key replaced by `[redacted]`.
 */
export function redactUrl(url: string): string {
  const at = url.indexOf('?');
  const path = at < 0 ? url : url.slice(0, at);
  const query =
    at < 0
      ? ''
      : `?${url
          .slice(at + 1)
          .split('&')
          .map((pair) => {
            const eq = pair.indexOf('=');
            const rawName = eq < 0 ? pair : pair.slice(0, eq);
            let name = rawName;
            try {
              name = decodeURIComponent(rawName.replace(/\+/g, ' '));
            } catch {
              // a malformed escape: judge the name as written
            }
            return eq >= 0 && SECRET_PARAMETER.test(name.trim()) ? `${rawName}=[redacted]` : pair;
          })
          .join('&')}`;
  return `${path}${query}`.replace(REWIND_KEY, '[redacted]');
}
