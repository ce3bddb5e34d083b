// Preloaded into a server a bench starts (NODE_OPTIONS="--import ./bench/loop-delay.mjs"; plain JavaScript, as it loads before tsx):
// on SIGUSR2 it prints the longest the event loop was blocked since the last
// report (`loop-delay-max <ms>`) and starts over. A direct measure of stalls,
// free of the client's own scheduling.
import { monitorEventLoopDelay } from 'node:perf_hooks';

const h = monitorEventLoopDelay({ resolution: 5 });
h.enable();
process.on('SIGUSR2', () => {
  console.log(`loop-delay-max ${(h.max / 1e6).toFixed(1)}`);
  h.reset();
});
