// The reachability engine off the UI thread: the page posts what changed in the
// live cluster (inputsync.ts: trimmed to what the engine reads) and asks for matrix, graph, explanation
// and what-if answers; requests are answered in the order they arrive.
// First: Zod must not probe for eval under the app's CSP (see jitless.ts).
import '../../jitless.ts';
import { Session } from './compute.ts';
import type { WorkerRequest, WorkerResponse } from './protocol.ts';
import { ReceivedInput } from './inputsync.ts';

interface WorkerScope {
  onmessage: ((e: MessageEvent<WorkerRequest>) => void) | null;
  postMessage(message: WorkerResponse, transfer?: Transferable[]): void;
}
const scope = self as unknown as WorkerScope;
const session = new Session();
const input = new ReceivedInput();

function answer(req: WorkerRequest): { result: unknown; transfer?: Transferable[] } {
  switch (req.type) {
    case 'input':
      input.apply(req.changes);
      return { result: req.version === undefined ? null : session.setInput(input.input(), req.version) };
    case 'summary':
      return { result: session.getSummary() };
    case 'matrix': {
      const view = session.matrixView(req.port, req.protocol);
      return { result: view, transfer: [view.counts.buffer] };
    }
    case 'graph':
      return { result: session.graphView(req.level) };
    case 'explain':
      return { result: session.explain(req.from, req.to, req.port, req.protocol) };
    case 'explainCell':
      return { result: session.explainCell(req.fromKey, req.toKey, req.port, req.protocol) };
    case 'whatif':
      return { result: session.whatIf(req.draft, req.original, req.extraPorts, req.intents) };
    case 'intents':
      return { result: session.intentsView(req.intents) };
    case 'fixCell':
      return { result: session.fixCell(req.fromKey, req.toKey, req.port, req.protocol, req.expect) };
    case 'fixIntent':
      return { result: session.fixIntent(req.intent) };
  }
}

scope.onmessage = (e) => {
  const req = e.data;
  try {
    const { result, transfer } = answer(req);
    scope.postMessage({ id: req.id, ok: true, result }, transfer);
  } catch (err) {
    scope.postMessage({ id: req.id, ok: false, error: err instanceof Error ? err.message : String(err) });
  }
};
