// Types of workspace.mjs for the TypeScript files that import it (vitest.config.mts, tsdown.config.mts).
export interface WorkspacePackage {
  name: string;
  dir: string;
  manifest: Record<string, any>;
}
export interface EntryPoint {
  subpath: string;
  source: string;
  entry: string;
  cjs: string;
}
export const REPO_ROOT: string;
export const PUBLIC_ROOTS: string[];
export const TESTING_ENTRIES: Record<string, string>;
export function workspacePackages(): Map<string, WorkspacePackage>;
export function publicPackages(packages?: Map<string, WorkspacePackage>): WorkspacePackage[];
export function isTestingSubpath(subpath: string): boolean;
export function testingDistFolders(pkg: WorkspacePackage): string[];
export function entryPoints(pkg: WorkspacePackage): EntryPoint[];
export function installedWith(names: string[], packages?: Map<string, WorkspacePackage>): string[];
export function repositoryVersionOf(name: string, packages?: Map<string, WorkspacePackage>): string;
