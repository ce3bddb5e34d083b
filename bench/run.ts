// `npm run bench`: every benchmark, each printing ratios against a baseline measured in the same run.
import { benchServer } from './server.ts';

await benchServer();
process.exit(0);
