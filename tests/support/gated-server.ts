/**
 * An endpoint whose pace the test sets, for tests that stop a run part-way: it answers the
 * first `open` requests at once with the oracle's reply and holds every later one until
 * `release()`. A test can then wait for a given number of records and kill or interrupt the
 * run knowing that it cannot have finished meanwhile, however slow or fast the machine is.
 */
import type { ServerResponse } from 'node:http';
import { runPolicy } from '../../src/task/policies.js';
import type { ChatMessage } from '../../src/task/types.js';
import { hostileServer, sendJson, type HostileServer } from './hostile-server.js';

export interface GatedServer extends HostileServer {
  /** Answers every held request, and every later one at once. */
  release(): void;
}

export async function gatedServer(open: number): Promise<GatedServer> {
  let answered = 0;
  let released = false;
  const held: Array<() => void> = [];
  const answer = (body: string, res: ServerResponse) => {
    if (res.destroyed) return;
    const { messages, model } = JSON.parse(body) as { messages: ChatMessage[]; model: string };
    sendJson(res, 200, {
      id: 'chatcmpl-gated',
      object: 'chat.completion',
      created: 0,
      model,
      choices: [
        { index: 0, message: { role: 'assistant', content: runPolicy('oracle', messages) }, finish_reason: 'stop' },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
    });
  };
  const server = await hostileServer((req, res) => {
    if (released || answered < open) {
      answered++;
      answer(req.body, res);
    } else held.push(() => answer(req.body, res));
  });
  return {
    ...server,
    release() {
      released = true;
      for (const go of held.splice(0)) go();
    },
  };
}
