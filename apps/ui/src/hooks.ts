import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiProblem } from './api/client';

export type Route = { page: 'sessions' } | { page: 'session'; sessionId: string } | { page: 'audit'; sessionId: string | null };

/** The hash is `#/path?view=params`: the path names the page, the params the view inside it (step, branch, tab…). */
function splitHash(hash: string): { path: string; params: URLSearchParams } {
  const text = hash.replace(/^#\/?/, '');
  const at = text.indexOf('?');
  return at < 0 ? { path: text, params: new URLSearchParams() } : { path: text.slice(0, at), params: new URLSearchParams(text.slice(at + 1)) };
}

export function parseRoute(hash: string): Route {
  const parts = splitHash(hash).path.split('/').map(decodeURIComponent);
  if (parts[0] === 'sessions' && parts[1]) return { page: 'session', sessionId: parts[1] };
  if (parts[0] === 'audit') return { page: 'audit', sessionId: parts[1] || null };
  return { page: 'sessions' };
}

/** Fired when a view param changes through history.pushState/replaceState (which fire no hashchange). */
const VIEW_CHANGED = 'rewind:view';

function onLocationChange(listener: () => void): () => void {
  window.addEventListener('hashchange', listener);
  window.addEventListener('popstate', listener);
  window.addEventListener(VIEW_CHANGED, listener);
  return () => {
    window.removeEventListener('hashchange', listener);
    window.removeEventListener('popstate', listener);
    window.removeEventListener(VIEW_CHANGED, listener);
  };
}

export function useHashRoute(): Route {
  const [hash, setHash] = useState(() => window.location.hash);
  useEffect(() => onLocationChange(() => setHash(window.location.hash)), []);
  // Same page, new view params: the same route object, so pages keyed by it are kept.
  const route = parseRoute(hash);
  const kept = useRef(route);
  if (JSON.stringify(kept.current) !== JSON.stringify(route)) kept.current = route;
  return kept.current;
}

/** Several params set in one event (a click choosing a step and its branch) make one history entry. */
let pendingEntry = false;

/** Sets view params in the hash: a new history entry (back returns to the previous view), or the same with `replace`. */
export function setViewParams(values: Record<string, string | number | null | undefined>, replace = false): void {
  const { path, params } = splitHash(window.location.hash);
  for (const [name, value] of Object.entries(values)) {
    if (value === null || value === undefined || value === '') params.delete(name);
    else params.set(name, String(value));
  }
  const search = params.toString();
  const url = `#/${path}${search ? `?${search}` : ''}`;
  if (url === window.location.hash) return;
  if (replace || pendingEntry) window.history.replaceState(null, '', url);
  else {
    window.history.pushState(null, '', url);
    pendingEntry = true;
    queueMicrotask(() => (pendingEntry = false));
  }
  window.dispatchEvent(new Event(VIEW_CHANGED));
}

/** The view params of the current hash, kept in step with back/forward. */
export function useViewParams(): URLSearchParams {
  const [search, setSearch] = useState(() => splitHash(window.location.hash).params.toString());
  useEffect(() => onLocationChange(() => setSearch(splitHash(window.location.hash).params.toString())), []);
  return new URLSearchParams(search);
}

/** A whole number from a view param, or null. */
export function numberParam(params: URLSearchParams, name: string): number | null {
  const text = params.get(name);
  const n = text === null ? NaN : Number(text);
  return Number.isInteger(n) && n >= 0 ? n : null;
}

export interface Loaded<T> {
  data: T | null;
  error: ApiProblem | null;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` whenever `deps` change; a newer answer always wins over an older one. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: ApiProblem | null; loading: boolean }>({ data: null, error: null, loading: true });
  const [tick, setTick] = useState(0);
  const generation = useRef(0);
  useEffect(() => {
    const mine = ++generation.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => mine === generation.current && setState({ data, error: null, loading: false }),
      (error: unknown) =>
        mine === generation.current &&
        setState((s) => ({ data: s.data, error: error instanceof ApiProblem ? error : new ApiProblem(0, 'client_error', String(error)), loading: false })),
    );
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

/** `value`, once it has stopped changing for `ms`: a slider dragged across many steps asks the server once. */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

export interface CursorPages {
  /** The cursor of the page shown (null: the first page). */
  cursor: string | null;
  /** 1-based number of the page shown. */
  page: number;
  previous: (() => void) | null;
  next: (nextCursor: string | null | undefined) => void;
  restart: () => void;
}

/** Keyset paging: keeps the cursors of the pages before this one, so "Previous" can go back. */
export function useCursorPages(): CursorPages {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  return {
    cursor: cursors[cursors.length - 1] ?? null,
    page: cursors.length,
    previous: cursors.length < 2 ? null : () => setCursors((c) => c.slice(0, -1)),
    next: (nextCursor) => {
      if (nextCursor) setCursors((c) => [...c, nextCursor]);
    },
    restart: () => setCursors([null]),
  };
}

/** Moves focus to the page's heading (made focusable for it): a new page is announced from its top. */
export function focusHeading(): boolean {
  const heading = document.querySelector<HTMLElement>('main h1');
  if (!heading) return false;
  if (!heading.hasAttribute('tabindex')) heading.tabIndex = -1;
  heading.focus();
  return document.activeElement === heading;
}

/**
 * For dialogs: when the dialog goes, focus returns to what opened it (or, if that is gone, to the
 * page's heading) rather than dropping to <body>. The opener is taken at the first render, before
 * the dialog takes focus.
 */
export function useReturnFocus(): void {
  const opener = useRef<Element | null | undefined>(undefined);
  if (opener.current === undefined) opener.current = document.activeElement;
  useEffect(
    () => () => {
      // After the dialog has left the page (its modality makes the rest inert until then).
      setTimeout(() => {
        const target = opener.current;
        if (target instanceof HTMLElement && target.isConnected && target !== document.body) target.focus();
        if (document.activeElement === null || document.activeElement === document.body) focusHeading();
      });
    },
    [],
  );
}
