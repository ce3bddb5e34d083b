// The wire worker: list pages and watch sockets off the main thread (wireserve.ts).
import { serveWire, type WireRequest } from './wireserve.ts';

const serve = serveWire((a) => postMessage(a));
onmessage = (e: MessageEvent<WireRequest>) => serve(e.data);
