import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiProblem } from './api/client';

export type Route = { page: 'sessions' } | { page: 'session'; sessionId: string } | { page: 'audit'; sessionId: string | null };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  if (parts[0] === 'sessions' && parts[1]) return { page: 'session', sessionId: parts[1] };
  if (parts[0] === 'audit') return { page: 'audit', sessionId: parts[1] || null };
  return { page: 'sessions' };
}

export function useHashRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
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
