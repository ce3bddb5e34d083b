// The live forecast's worker (see liveforecast.ts): requests in, answers out.
import { ForecastMirror, type ForecastRequest } from './liveforecast.ts';

const mirror = new ForecastMirror();
const port = self as unknown as { onmessage: ((e: MessageEvent<ForecastRequest>) => void) | null; postMessage(m: unknown): void };
port.onmessage = (e) => {
  const answer = mirror.handle(e.data);
  if (answer) port.postMessage(answer);
};
