// The worker thread of BodyDecoder (bodies.ts): runs body jobs off the event
// loop and posts back JSON text, or the ApiError as data.
import { parentPort } from 'node:worker_threads';
import { runBodyJob, serializeError, STACK_OVERFLOW, type BodyJob } from './bodies.ts';
import { ApiError, errors } from './status.ts';
import { MAX_OBJECT_BYTES } from '../storage/storage.ts';

parentPort!.on('message', ({ id, job }: { id: number; job: BodyJob }) => {
  try {
    const { value, warnings } = runBodyJob(job);
    const json = JSON.stringify(value ?? null);
    // An object the storage would refuse is refused here, before the event loop parses it back.
    if (job.op !== 'parse' && json.length > MAX_OBJECT_BYTES) throw errors.objectTooLarge(MAX_OBJECT_BYTES, Buffer.byteLength(json));
    parentPort!.postMessage({ id, json, warnings });
  } catch (e) {
    if (e instanceof ApiError) parentPort!.postMessage({ id, error: serializeError(e) });
    else if (e instanceof RangeError && e.message.includes('call stack')) parentPort!.postMessage({ id, failure: STACK_OVERFLOW });
    else parentPort!.postMessage({ id, failure: String((e as Error)?.stack ?? e) });
  }
});
