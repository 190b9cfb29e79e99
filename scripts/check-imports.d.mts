/** A module's path under the source root, `/`-separated (`ledger/create-ledger.ts`). */
type Module = string;

export interface LayerViolation {
  readonly from: Module;
  readonly to: Module;
  readonly fromLayer: string;
  readonly toLayer: string;
}

export interface ImportCheck {
  readonly modules: number;
  readonly arrows: number;
  /** Each circle as the path of modules back to its first one. */
  readonly cycles: readonly (readonly Module[])[];
  readonly violations: readonly LayerViolation[];
}

export const LAYERS: readonly (readonly [string, RegExp])[];
export const ALLOWED: Readonly<Record<string, readonly string[]>>;
export function layerOf(file: Module): string | undefined;
export function specifiersOf(text: string): string[];
export function importGraph(root: string): Map<Module, Module[]>;
export function findCycles(graph: ReadonlyMap<Module, readonly Module[]>): Module[][];
export function layerViolations(graph: ReadonlyMap<Module, readonly Module[]>): LayerViolation[];
export function checkImports(root: string): ImportCheck;
