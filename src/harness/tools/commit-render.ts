/**
 * The built-in `commit_render` tool: make a successful render of this run the proposal. Nothing
 * is rendered again or persisted; the last commit wins.
 */

import type { RunContext } from '../run/run-context.js';
import { RENDER_REF_PATTERN } from '../visual/render-store.js';
import { type AgentTool, type ToolBody, unbound } from './agent-tool.js';
import { ToolCallError, unknownRefError } from './tool-call-error.js';

/** Name of the built-in commit tool. */
export const COMMIT_RENDER = 'commit_render';

const INPUT_SCHEMA = Object.freeze({
  type: 'object',
  properties: {
    render_ref: {
      type: 'string',
      pattern: RENDER_REF_PATTERN,
      description: 'The render_ref of a successful render of this run',
    },
  },
  required: ['render_ref'],
  additionalProperties: false,
});

/** The result of `commit_render`. */
interface CommitOutput {
  readonly committed: string;
  readonly changed: boolean;
  readonly operations: number;
}

/** The definition of `commit_render`; a run binds {@link commitRenderBody} to it. */
export const COMMIT_RENDER_DEFINITION: AgentTool<{ render_ref: string }, CommitOutput> = Object.freeze({
  name: COMMIT_RENDER,
  description:
    'Make a render of this run your proposal (the last commit wins; editing must be allowed). Then answer with "patch": null to propose it, or with a patch that gives the same design.',
  inputSchema: INPUT_SCHEMA,
  execute: unbound,
});

/** The body of the run's `commit_render` tool. */
export function commitRenderBody(run: RunContext): ToolBody<{ render_ref: string }, CommitOutput> {
  return function commitRender({ render_ref: ref }) {
    if (!run.canEdit) {
      throw new ToolCallError(
        'rejected',
        'edit_not_allowed',
        'Editing is not allowed in this run: nothing can be committed',
      );
    }
    const record = run.renders.get(ref);
    if (record === undefined) {
      throw unknownRefError(
        'unknown_render_ref',
        `Unknown render ref \`${ref}\`: commit the render_ref of a successful render of this run`,
        run.renders.list().map((item) => item.ref),
      );
    }
    run.renders.committed = record;
    return { committed: record.ref, changed: record.changed, operations: record.patch.length };
  };
}
