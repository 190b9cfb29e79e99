/** What a command printed and how long it took. */
export interface RunResult {
  readonly status: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** A consumer's project: an empty folder and its own temp folder. */
export interface Project {
  readonly base: string;
  readonly dir: string;
  readonly tmp: string;
}

/** Run a command; never throws for a non-zero exit. */
export function run(
  command: string,
  args: readonly string[],
  options?: { readonly cwd?: string; readonly env?: Readonly<Record<string, string>> },
): RunResult;

/** `npm pack` of the repository as it is built now. */
export function pack(repo: string, destination: string): { tarball: string; files: string[] };

/** An empty ESM project in a new temp folder. */
export function createProject(root?: string): Project;

/** `npm install` in the project. */
export function npmInstall(project: Project, specs: readonly string[]): RunResult;

/** Link packages of the repository's node_modules into the project. */
export function linkPackages(project: Project, repo: string, names: readonly string[]): void;

/** The entries of the project's temp folder. */
export function leftovers(project: Project): string[];

/** Whether this Node has a working `node:sqlite`. */
export function hasNodeSqlite(): boolean;
