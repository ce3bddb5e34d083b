// The worker thread of BodyDecoder (bodies.ts): runs body jobs off the event
// loop and posts back JSON text, or the ApiError as data.
import { parentPort } from 'node:worker_threads';
import { answerOf, runBodyJob, serializeError, STACK_OVERFLOW, type BodyJob } from './bodies.ts';
import { ApiError } from './status.ts';

parentPort!.on('message', ({ id, job }: { id: number; job: BodyJob }) => {
  try {
    parentPort!.postMessage({ id, answer: answerOf(runBodyJob(job), job.op !== 'parse') });
  } catch (e) {
    if (e instanceof ApiError) parentPort!.postMessage({ id, error: serializeError(e) });
    else if (e instanceof RangeError && e.message.includes('call stack')) parentPort!.postMessage({ id, failure: STACK_OVERFLOW });
    else parentPort!.postMessage({ id, failure: String((e as Error)?.stack ?? e) });
  }
});
