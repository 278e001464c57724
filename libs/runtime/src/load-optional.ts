/**
 * True where this file runs as an ES module: the ES module build (tsdown.config.mts) and the tests,
 * which run the sources (vitest.config.mts). tsc's CommonJS build leaves it undefined.
 */
declare const __REWIND_ESM_BUILD__: boolean | undefined;

/** A package that only some store kinds need, and the driver the user installs for it. */
export interface OptionalPackage {
  /** What to load: an adapter entry point (e.g. `@rewind/event-store/postgres`). */
  specifier: string;
  /** The npm packages the user installs to have it, e.g. `pg`. */
  install: readonly string[];
  /** What it is needed for, e.g. `PostgreSQL (REWIND_STORE=postgres)`. */
  usedFor: string;
}

/** An optional peer of @rewind/runtime that the chosen store kind needs is not installed. */
export class MissingOptionalPackageError extends Error {
  constructor(
    readonly packages: readonly string[],
    usedFor: string,
    options: { cause: unknown },
  ) {
    super(
      `install ${packages.join(' and ')} to use ${usedFor}: \`npm install ${packages.join(' ')}\` (an optional peer of @rewind/runtime, not installed).`,
      options,
    );
    this.name = 'MissingOptionalPackageError';
  }
}

const notFound = (error: unknown): boolean =>
  error instanceof Error && ['MODULE_NOT_FOUND', 'ERR_MODULE_NOT_FOUND'].includes((error as NodeJS.ErrnoException).code ?? '');

/**
 * Loads a package at first use, from the same module system as the caller: the CommonJS build
 * requires the CommonJS copy and the ES module build imports the ES module copy, so a process never
 * holds two copies of one package (and two of each class). A missing driver names what to install.
 */
export async function loadOptional<T>(wanted: OptionalPackage): Promise<T> {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the CommonJS build's own require, on purpose (see above)
    if (typeof __REWIND_ESM_BUILD__ === 'undefined' && typeof require === 'function') return require(wanted.specifier) as T;
    return (await import(wanted.specifier)) as T;
  } catch (error) {
    if (notFound(error)) throw new MissingOptionalPackageError(wanted.install, wanted.usedFor, { cause: error });
    throw error;
  }
}
