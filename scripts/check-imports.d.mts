/** A module's path under the source root, `/`-separated (`ledger/create-ledger.ts`). */
type Module = string;

export interface LayerViolation {
  readonly from: Module;
  readonly to: Module;
  readonly fromLayer: string;
  readonly toLayer: string;
}

/** A branch on a store driver's name (`kind === 'redis'`, `case 'sqlite':`) at a line of a module. */
export interface DriverBranch {
  readonly file: Module;
  readonly line: number;
  readonly code: string;
}

export interface ImportCheck {
  readonly modules: number;
  readonly arrows: number;
  /** Each circle as the path of modules back to its first one. */
  readonly cycles: readonly (readonly Module[])[];
  readonly violations: readonly LayerViolation[];
  /** Branches on a driver's name outside storage/. */
  readonly driverBranches: readonly DriverBranch[];
}

export const LAYERS: readonly (readonly [string, RegExp])[];
export const ALLOWED: Readonly<Record<string, readonly string[]>>;
export function layerOf(file: Module): string | undefined;
export function specifiersOf(text: string): string[];
export function importGraph(root: string): Map<Module, Module[]>;
export function findCycles(graph: ReadonlyMap<Module, readonly Module[]>): Module[][];
export function layerViolations(graph: ReadonlyMap<Module, readonly Module[]>): LayerViolation[];
export const DRIVER_NAMES: readonly string[];
export function driverBranchesOf(text: string): Omit<DriverBranch, 'file'>[];
export function driverBranches(root: string): DriverBranch[];
export function checkImports(root: string): ImportCheck;
