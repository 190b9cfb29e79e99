import { Agent, type AgentInputItem, run } from '@openai/agents';
import { describe, expect, it } from 'vitest';
import { type GuardEvent, hyphaeCallModelInputFilter } from '../../src/adapters/openai-agents.js';
import { resultsIn, ScriptedAgentModel } from '../helpers/scripted-agent-model.js';

const user = (text: string): AgentInputItem => ({ role: 'user', content: text });
const call = (callId: string, name = 'lookup'): AgentInputItem => ({
  type: 'function_call',
  callId,
  name,
  arguments: '{"id":"o_1"}',
  status: 'completed',
});
const result = (callId: string, text = 'ok'): AgentInputItem => ({
  type: 'function_call_result',
  callId,
  name: 'lookup',
  status: 'completed',
  output: { type: 'text', text },
});
const reasoning: AgentInputItem = { type: 'reasoning', content: [{ type: 'input_text', text: 'thinking' }] };

const filter = hyphaeCallModelInputFilter();
const repair = (input: AgentInputItem[]) => filter({ modelData: { input, instructions: 'be brief' } });

describe('hyphaeCallModelInputFilter', () => {
  it('returns a well-formed input as it is', () => {
    const input = [user('hi'), reasoning, call('call_1'), result('call_1'), user('again')];
    const repaired = repair(input);
    expect(repaired.input).toEqual(input);
    expect(repaired.input.every((item, index) => item === input[index])).toBe(true);
    expect(repaired.instructions).toBe('be brief');
  });

  it('answers an unanswered call right after it, saying it was NOT executed', () => {
    const input = [user('hi'), call('call_lost'), user('now')];
    const repaired = repair(input).input;
    expect(repaired.map((item) => ('type' in item ? item.type : 'message'))).toEqual([
      'message',
      'function_call',
      'function_call_result',
      'message',
    ]);
    expect(repaired[2]).toMatchObject({ type: 'function_call_result', callId: 'call_lost', name: 'lookup' });
    expect(JSON.stringify(repaired[2])).toContain('NOT executed');
  });

  it('drops an orphan result and keeps items outside the repair in their places', () => {
    const input = [user('hi'), reasoning, call('call_1'), result('call_1'), result('call_orphan'), user('now')];
    const repaired = repair(input).input;
    expect(repaired).toEqual([user('hi'), reasoning, call('call_1'), result('call_1'), user('now')]);
    expect(repaired[1]).toBe(reasoning);
  });

  it('reads calls around a reasoning item as one turn', () => {
    const input = [user('hi'), call('call_1'), reasoning, call('call_2'), result('call_1'), result('call_2')];
    expect(repair(input).input).toBe(input);
  });

  it('keeps one result of a call answered twice', () => {
    const input = [user('hi'), call('call_1'), result('call_1', 'first'), result('call_1', 'second')];
    const repaired = repair(input).input;
    expect(repaired.filter((item) => 'type' in item && item.type === 'function_call_result')).toHaveLength(1);
  });

  it('repairs the input of a real run before the model sees it, and reports it for the run', async () => {
    const events: GuardEvent[] = [];
    const model = new ScriptedAgentModel([{ text: 'answered' }]);
    const agent = new Agent({ name: 'support', model });
    const history = [user('earlier'), call('call_lost'), user('where is my order?')];

    const outcome = await run(agent, history, {
      context: { threadId: 'thread-1', runId: 'run-1' },
      callModelInputFilter: hyphaeCallModelInputFilter({ onEvent: (event) => events.push(event) }),
    });

    expect(outcome.finalOutput).toBe('answered');
    const [sent] = resultsIn(model.requests[0]);
    expect(sent?.[0]).toBe('call_lost');
    expect(sent?.[1]).toContain('NOT executed');
    expect(events).toMatchObject([{ type: 'transcript_repair', threadId: 'thread-1', runId: 'run-1' }]);
  });
});
