/**
 * Build a Workflow DevKit app with its own CLI (`workflow build --target standalone`) in a temp
 * folder: the app's `workflows/` copied there, its relative imports of this repository rewritten to
 * absolute paths, and node_modules linked to this checkout's. Used by the adapter's tests and by
 * the durable bench, each with an app of its own.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const NODE_MODULES = fileURLToPath(new URL('../../node_modules', import.meta.url));
const CLI = join(NODE_MODULES, 'workflow/bin/run.js');

/** A build in a temp folder of its own. */
export interface WorkflowBuild {
  readonly dir: string;
  /** The id the build's manifest gives the workflow function `name`. */
  idOf(name: string): string;
  remove(): void;
}

/**
 * Copy `appDir/workflows` into a temp folder named after `prefix`, pass each `.ts` file's text
 * through `rewrite` (to point its imports of this repository at absolute paths), and build it.
 */
export function buildWorkflowApp(appDir: string, prefix: string, rewrite: (text: string) => string): WorkflowBuild {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const remove = (): void => rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
  try {
    cpSync(join(appDir, 'workflows'), join(dir, 'workflows'), { recursive: true });
    for (const file of readdirSync(join(dir, 'workflows')).filter((name) => name.endsWith('.ts'))) {
      const source = join(dir, 'workflows', file);
      writeFileSync(source, rewrite(readFileSync(source, 'utf8')));
    }
    writeFileSync(join(dir, 'package.json'), '{ "private": true, "type": "module" }\n');
    symlinkSync(NODE_MODULES, join(dir, 'node_modules'), 'dir');
    const built = spawnSync(process.execPath, [CLI, 'build', '--target', 'standalone'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, WORKFLOW_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1' },
      timeout: 120_000,
    });
    if (built.status !== 0)
      throw new Error(`workflow build failed (${built.status}):\n${built.stdout}\n${built.stderr}`);
    // The bundles are CommonJS; the app folder is a module package.
    writeFileSync(join(dir, '.well-known/package.json'), '{ "type": "commonjs" }\n');
    const manifest = JSON.parse(readFileSync(join(dir, '.well-known/workflow/v1/manifest.json'), 'utf8')) as {
      workflows: Record<string, Record<string, { workflowId: string }>>;
    };
    const idOf = (name: string): string => {
      const id = Object.values(manifest.workflows).find((file) => file[name])?.[name]?.workflowId;
      if (id === undefined) throw new Error(`The build has no ${name} workflow`);
      return id;
    };
    return { dir, idOf, remove };
  } catch (error) {
    remove();
    throw error;
  }
}
